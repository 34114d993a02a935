package io.kvrouter.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.NatsAuth;
import io.kvrouter.config.NatsServer;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.TestCertificates;
import io.nats.client.Connection;
import io.nats.client.NKey;
import io.nats.client.Nats;
import io.nats.client.support.JsonSerializable;
import io.nats.client.support.JwtUtils;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every way {@link NatsOptions} reaches a NATS server, against a real nats-server configured for
 * it: TLS with mutual TLS and a user and password, a token, an NKey, and a credentials file signed
 * by an operator and account made here; the wrong credential, a missing client certificate and a
 * plain URL to a TLS server are each refused.
 */
class NatsSecurityIT {
  @TempDir Path dir;

  /** Connects once (no retries) and round-trips a message. */
  private static void roundTrip(NatsServer server) throws Exception {
    try (Connection connection =
        Nats.connect(
            NatsOptions.builder(server)
                .maxReconnects(0)
                .connectionTimeout(Duration.ofSeconds(5))
                .build())) {
      var subscription = connection.subscribe("kvrouter.check");
      connection.publish("kvrouter.check", "hi".getBytes(StandardCharsets.UTF_8));
      var message = subscription.nextMessage(Duration.ofSeconds(10));
      assertThat(message).isNotNull();
      assertThat(new String(message.getData(), StandardCharsets.UTF_8)).isEqualTo("hi");
    }
  }

  /** The plain URL of {@code nats} with {@code auth}, no TLS settings. */
  private static NatsServer anonymousUrl(NatsServerProcess nats, NatsAuth auth) {
    return new NatsServer(nats.url(), auth, null, false, null, null);
  }

  /** The connection is refused (jnats gives up with an IOException), or its TLS is. */
  private static void refused(NatsServer server) {
    assertThatThrownBy(() -> roundTrip(server)).isInstanceOf(java.io.IOException.class);
  }

  @Test
  void mutualTlsAndUserPassword() throws Exception {
    TestCertificates ca = TestCertificates.generate(dir);
    Path rogueDir = Files.createDirectory(dir.resolve("rogue"));
    TestCertificates rogue = TestCertificates.generate(rogueDir);
    String config =
        "tls {\n"
            + "  cert_file: \""
            + ca.serverCert()
            + "\"\n  key_file: \""
            + ca.serverKey()
            + "\"\n  ca_file: \""
            + ca.ca()
            + "\"\n  verify: true\n}\n"
            + "authorization { user: kvrouter, password: s3cret-pw }\n";
    try (NatsServerProcess nats = NatsServerProcess.startWithConfig(config, false)) {
      String tlsUrl = "tls://127.0.0.1:" + nats.port();
      NatsServer good =
          new NatsServer(
              tlsUrl,
              NatsAuth.userPassword("kvrouter", "s3cret-pw"),
              ca.ca(),
              false,
              ca.clientCert(),
              ca.clientKey());
      roundTrip(good);

      refused(anonymousUrl(nats, good.auth())); // plain text to a TLS server
      refused(
          new NatsServer(tlsUrl, good.auth(), ca.ca(), false, null, null)); // no client certificate
      refused(
          new NatsServer(
              tlsUrl, good.auth(), ca.ca(), false, rogue.clientCert(), rogue.clientKey()));
      refused(
          new NatsServer(
              tlsUrl,
              NatsAuth.userPassword("kvrouter", "wrong"),
              ca.ca(),
              false,
              ca.clientCert(),
              ca.clientKey()));
      // a server certificate from another CA is not trusted
      refused(
          new NatsServer(tlsUrl, good.auth(), rogue.ca(), false, ca.clientCert(), ca.clientKey()));
      // insecure checks no server certificate, but still presents the client's
      roundTrip(new NatsServer(tlsUrl, good.auth(), null, true, ca.clientCert(), ca.clientKey()));
    }
  }

  @Test
  void aServerCertificateForAnotherName_isRefused() throws Exception {
    TestCertificates ca = TestCertificates.generate(dir);
    TestCertificates.Issued other = ca.issueServer(dir, "other", "DNS:other.internal");
    String config =
        "tls {\n  cert_file: \"" + other.cert() + "\"\n  key_file: \"" + other.key() + "\"\n}\n";
    try (NatsServerProcess nats = NatsServerProcess.startWithConfig(config, false)) {
      NatsServer byIp =
          new NatsServer(
              "tls://127.0.0.1:" + nats.port(), NatsAuth.NONE, ca.ca(), false, null, null);
      refused(byIp); // signed by the trusted CA, but for another name
      roundTrip(
          new NatsServer(byIp.url(), NatsAuth.NONE, ca.ca(), true, null, null)); // checks neither
    }
  }

  @Test
  void token() throws Exception {
    try (NatsServerProcess nats =
        NatsServerProcess.startWithConfig("authorization { token: t0ken-abc }\n", false)) {
      roundTrip(anonymousUrl(nats, NatsAuth.token("t0ken-abc")));
      refused(anonymousUrl(nats, NatsAuth.token("t0ken-xyz")));
      refused(nats.server());
    }
  }

  @Test
  void nkey() throws Exception {
    NKey user = NKey.createUser(null);
    NKey other = NKey.createUser(null);
    String config =
        "authorization { users: [ { nkey: " + new String(user.getPublicKey()) + " } ] }\n";
    try (NatsServerProcess nats = NatsServerProcess.startWithConfig(config, false)) {
      roundTrip(anonymousUrl(nats, NatsAuth.nkey(new String(user.getSeed()))));
      refused(anonymousUrl(nats, NatsAuth.nkey(new String(other.getSeed()))));
    }
  }

  @Test
  void credentialsFile_signedByAnOperatorAndAccount() throws Exception {
    NKey operator = NKey.createOperator(null);
    NKey account = NKey.createAccount(null);
    NKey user = NKey.createUser(null);
    String operatorKey = new String(operator.getPublicKey());
    String accountKey = new String(account.getPublicKey());
    String operatorJwt =
        JwtUtils.issueJWT(
            operator,
            operatorKey,
            "kvrouter-test-operator",
            null,
            JwtUtils.currentTimeSeconds(),
            operatorKey, // the issuer
            claims("{\"type\":\"operator\",\"version\":2}"));
    String accountJwt =
        JwtUtils.issueJWT(
            operator,
            accountKey,
            "kvrouter-test-account",
            null,
            JwtUtils.currentTimeSeconds(),
            operatorKey, // the issuer
            claims(
                "{\"type\":\"account\",\"version\":2,\"limits\":{\"subs\":-1,\"data\":-1,"
                    + "\"payload\":-1,\"imports\":-1,\"exports\":-1,\"wildcards\":true,"
                    + "\"conn\":-1,\"leaf\":-1}}"));
    String userJwt =
        JwtUtils.issueUserJWT(account, accountKey, new String(user.getPublicKey()), "kvrouter");
    Path creds =
        Files.writeString(
            dir.resolve("kvrouter.creds"),
            "-----BEGIN NATS USER JWT-----\n"
                + userJwt
                + "\n------END NATS USER JWT------\n\n"
                + "-----BEGIN USER NKEY SEED-----\n"
                + new String(user.getSeed())
                + "\n------END USER NKEY SEED------\n");
    String config =
        "operator: "
            + operatorJwt
            + "\nresolver: MEMORY\nresolver_preload: {\n  "
            + accountKey
            + ": "
            + accountJwt
            + "\n}\n";
    try (NatsServerProcess nats = NatsServerProcess.startWithConfig(config, false)) {
      roundTrip(anonymousUrl(nats, NatsAuth.credentialsFile(creds)));
      refused(nats.server());
    }
  }

  private static JsonSerializable claims(String json) {
    return () -> json;
  }
}
