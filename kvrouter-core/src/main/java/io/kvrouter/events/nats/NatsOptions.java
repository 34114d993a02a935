package io.kvrouter.events.nats;

import io.kvrouter.common.PemTls;
import io.kvrouter.config.NatsAuth;
import io.kvrouter.config.NatsServer;
import io.nats.client.Nats;
import io.nats.client.Options;

/**
 * The one place a {@link NatsServer} becomes jnats {@link Options}: its URLs, its credentials
 * ({@link NatsAuth}: user and password, token, NKey seed or credentials file) and, for {@code
 * tls://} URLs, a TLS context ({@link PemTls}): the JVM's trusted CAs or the CA of {@code
 * --nats-tls-ca-cert-path}, the server's host name checked (jnats itself checks none, so host names
 * are not resolved to addresses first), nothing checked with {@code --nats-tls-insecure}, and the
 * client certificate of {@code --nats-tls-client-cert-path} when given.
 *
 * <p>The TLS settings are checked here, when a connection is made, rather than at start: a router
 * or worker that uses no NATS starts whatever {@code NATS_TLS_*} its environment holds.
 */
public final class NatsOptions {
  private NatsOptions() {}

  /**
   * A builder holding the server, its credentials and TLS; the caller adds the rest.
   *
   * @throws IllegalArgumentException when TLS settings come with a plain URL, the URLs mix schemes,
   *     or a TLS file cannot be read or used
   */
  public static Options.Builder builder(NatsServer server) {
    Options.Builder builder = new Options.Builder().servers(server.urls().toArray(new String[0]));
    NatsAuth auth = server.auth();
    switch (auth.kind()) {
      case NONE -> {}
      case USER_PASSWORD -> builder.userInfo(auth.user(), auth.secret());
      case TOKEN -> builder.token(auth.secret().toCharArray());
      case NKEY -> builder.authHandler(Nats.staticCredentials(null, auth.secret().toCharArray()));
      case CREDENTIALS_FILE ->
          builder.authHandler(Nats.credentials(auth.credentialsFile().toString()));
    }
    server.checkTls();
    if (server.tls()) {
      try {
        builder
            .sslContext(
                PemTls.clientContext(
                    server.caCertPath(),
                    server.insecure(),
                    server.clientCertPath(),
                    server.clientKeyPath()))
            .noResolveHostnames();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "NATS TLS for " + server + " cannot be set up: " + e.getMessage(), e);
      }
    }
    return builder;
  }
}
