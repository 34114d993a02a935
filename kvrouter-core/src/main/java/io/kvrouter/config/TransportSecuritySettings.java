package io.kvrouter.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * TLS and credentials of the inward hops, shared by the router and {@code router.jar worker}, with
 * Dynamo's names: the TCP request plane ({@code DYN_TCP_TLS_*}) and NATS ({@code NATS_TLS_*},
 * {@code NATS_AUTH_*}). etcd's are with the discovery settings, Kafka's in {@code
 * --kafka-client-config}.
 */
public final class TransportSecuritySettings {
  private TransportSecuritySettings() {}

  private static final String PEM_FILE = "a readable PEM file";

  private static Setting<Path> pem(String flag, String env, String help) {
    return new Setting<>(flag, env, "PEM", help, null, PEM_FILE, false, Parsers::path);
  }

  public static final Setting<Path> TCP_TLS_CERT_PATH =
      pem(
          "tcp-tls-cert-path",
          "DYN_TCP_TLS_CERT_PATH",
          "TCP request plane, server side: this process's certificate (its chain may follow),"
              + " with --tcp-tls-key-path; its TCP listener then speaks TLS only. The router's"
              + " listener takes the workers' response streams, a worker's takes requests. Set"
              + " the client side too (--tcp-tls-ca-cert-path): as in Dynamo, every process is"
              + " both.");

  public static final Setting<Path> TCP_TLS_KEY_PATH =
      pem(
          "tcp-tls-key-path",
          "DYN_TCP_TLS_KEY_PATH",
          "The private key of --tcp-tls-cert-path (PKCS#8, PKCS#1 or SEC 1), unencrypted.");

  public static final Setting<Path> TCP_TLS_CLIENT_CA_CERT_PATH =
      pem(
          "tcp-tls-client-ca-cert-path",
          "DYN_TCP_TLS_CLIENT_CA_CERT_PATH",
          "TCP request plane, server side: require every client to present a certificate"
              + " signed by this CA (mutual TLS); a client without one fails its handshake."
              + " Needs --tcp-tls-cert-path.");

  public static final Setting<Path> TCP_TLS_CA_CERT_PATH =
      pem(
          "tcp-tls-ca-cert-path",
          "DYN_TCP_TLS_CA_CERT_PATH",
          "TCP request plane, client side: open connections with TLS and accept only a server"
              + " certificate signed by this CA that names the host dialled (or"
              + " --tcp-tls-server-name).");

  public static final Setting<Boolean> TCP_TLS_INSECURE =
      new Setting<>(
          "tcp-tls-insecure",
          "DYN_TCP_TLS_INSECURE",
          null,
          "TCP request plane, client side: open connections with TLS but check no certificate."
              + " For development only.",
          "false",
          "true or false (also 1/0, yes/no, on/off)",
          false,
          Parsers::bool);

  public static final Setting<String> TCP_TLS_SERVER_NAME =
      new Setting<>(
          "tcp-tls-server-name",
          "DYN_TCP_TLS_SERVER_NAME",
          "NAME",
          "TCP request plane, client side: the name sent in SNI and looked for in every"
              + " server's certificate, instead of the host dialled (useful when workers are"
              + " dialled by IP and their certificates carry a DNS name).",
          null,
          "a host name",
          false,
          Parsers::nonEmpty);

  public static final Setting<Path> TCP_TLS_CLIENT_CERT_PATH =
      pem(
          "tcp-tls-client-cert-path",
          "DYN_TCP_TLS_CLIENT_CERT_PATH",
          "TCP request plane, client side: the certificate presented to servers that require"
              + " one (mutual TLS), with --tcp-tls-client-key-path. It turns client TLS on by"
              + " itself, as in Dynamo: servers are then checked against --tcp-tls-ca-cert-path,"
              + " or the JVM's trusted CAs without it.");

  public static final Setting<Path> TCP_TLS_CLIENT_KEY_PATH =
      pem(
          "tcp-tls-client-key-path",
          "DYN_TCP_TLS_CLIENT_KEY_PATH",
          "The private key of --tcp-tls-client-cert-path, unencrypted.");

  public static final Setting<Duration> TCP_TLS_HANDSHAKE_TIMEOUT =
      new Setting<>(
          "tcp-tls-handshake-timeout",
          "DYN_TCP_TLS_HANDSHAKE_TIMEOUT_SECS",
          "SECS",
          "How long a TCP request-plane TLS handshake may take, either side.",
          "3",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Path> NATS_TLS_CA_CERT_PATH =
      pem(
          "nats-tls-ca-cert-path",
          "NATS_TLS_CA_CERT_PATH",
          "The CA NATS's server certificate must be signed by (instead of the JVM's trusted"
              + " CAs). Needs a tls:// --nats-server.");

  public static final Setting<Boolean> NATS_TLS_INSECURE =
      new Setting<>(
          "nats-tls-insecure",
          "NATS_TLS_INSECURE",
          null,
          "Check no NATS server certificate. For development only. Needs a tls:// --nats-server.",
          "false",
          "true or false (also 1/0, yes/no, on/off)",
          false,
          Parsers::bool);

  public static final Setting<Path> NATS_TLS_CLIENT_CERT_PATH =
      pem(
          "nats-tls-client-cert-path",
          "NATS_TLS_CLIENT_CERT_PATH",
          "The certificate presented to a NATS server that requires one (mutual TLS), with"
              + " --nats-tls-client-key-path. Needs a tls:// --nats-server.");

  public static final Setting<Path> NATS_TLS_CLIENT_KEY_PATH =
      pem(
          "nats-tls-client-key-path",
          "NATS_TLS_CLIENT_KEY_PATH",
          "The private key of --nats-tls-client-cert-path, unencrypted.");

  public static final Setting<String> NATS_AUTH_USERNAME =
      new Setting<>(
          "nats-auth-username",
          "NATS_AUTH_USERNAME",
          "USER",
          "NATS user name, with --nats-auth-password. NATS credentials are taken in Dynamo's"
              + " order: user and password, else token, else NKey, else credentials file.",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> NATS_AUTH_PASSWORD =
      new Setting<>(
              "nats-auth-password",
              "NATS_AUTH_PASSWORD",
              "PASSWORD",
              "NATS password, with --nats-auth-username.",
              null,
              "a non-empty string",
              false,
              Parsers::nonEmpty)
          .asSecret();

  public static final Setting<String> NATS_AUTH_TOKEN =
      new Setting<>(
              "nats-auth-token",
              "NATS_AUTH_TOKEN",
              "TOKEN",
              "NATS authentication token.",
              null,
              "a non-empty string",
              false,
              Parsers::nonEmpty)
          .asSecret();

  public static final Setting<String> NATS_AUTH_NKEY =
      new Setting<>(
              "nats-auth-nkey",
              "NATS_AUTH_NKEY",
              "SEED",
              "The seed of a NATS NKey user (it starts SU); the server knows its public key.",
              null,
              "an NKey user seed, starting SU",
              false,
              TransportSecuritySettings::nkeySeed)
          .asSecret();

  public static final Setting<Path> NATS_AUTH_CREDENTIALS_FILE =
      new Setting<>(
          "nats-auth-credentials-file",
          "NATS_AUTH_CREDENTIALS_FILE",
          "FILE",
          "A NATS credentials file (a user JWT and its NKey seed, as nsc writes it).",
          null,
          "a readable file",
          false,
          Parsers::path);

  public static final Setting<Path> HTTP_WORKER_CA_CERT_PATH =
      pem(
          "http-worker-ca-cert-path",
          null,
          "The CA bundle the certificates of url=https:// workers (plain engines' HTTPS servers)"
              + " must chain to, instead of the JVM's trusted CAs; their host names are checked"
              + " too.");

  public static final Setting<Path> HTTP_WORKER_CLIENT_CERT_PATH =
      pem(
          "http-worker-client-cert-path",
          null,
          "The certificate presented to url=https:// workers that require one (vLLM's"
              + " --ssl-cert-reqs 2), with --http-worker-client-key-path.");

  public static final Setting<Path> HTTP_WORKER_CLIENT_KEY_PATH =
      pem(
          "http-worker-client-key-path",
          null,
          "The private key of --http-worker-client-cert-path, unencrypted.");

  /** The router's own rows: plain engines over HTTPS. */
  public static final List<Setting<?>> HTTP_WORKERS =
      List.of(HTTP_WORKER_CA_CERT_PATH, HTTP_WORKER_CLIENT_CERT_PATH, HTTP_WORKER_CLIENT_KEY_PATH);

  /** All of them, in help order. */
  public static final List<Setting<?>> ALL =
      List.of(
          TCP_TLS_CERT_PATH,
          TCP_TLS_KEY_PATH,
          TCP_TLS_CLIENT_CA_CERT_PATH,
          TCP_TLS_CA_CERT_PATH,
          TCP_TLS_INSECURE,
          TCP_TLS_SERVER_NAME,
          TCP_TLS_CLIENT_CERT_PATH,
          TCP_TLS_CLIENT_KEY_PATH,
          TCP_TLS_HANDSHAKE_TIMEOUT,
          NATS_TLS_CA_CERT_PATH,
          NATS_TLS_INSECURE,
          NATS_TLS_CLIENT_CERT_PATH,
          NATS_TLS_CLIENT_KEY_PATH,
          NATS_AUTH_USERNAME,
          NATS_AUTH_PASSWORD,
          NATS_AUTH_TOKEN,
          NATS_AUTH_NKEY,
          NATS_AUTH_CREDENTIALS_FILE);

  private static String nkeySeed(String raw) {
    String seed = raw.trim();
    // an NKey seed is 58 base32 characters; a user's starts SU
    if (!seed.startsWith("SU") || seed.length() != 58 || !seed.matches("[A-Z2-7]+")) {
      throw new IllegalArgumentException("not an NKey user seed");
    }
    return seed;
  }

  /** The TCP request plane's TLS, checked: pairs given together, files readable. */
  static TcpTls tcpTls(SettingValues values) {
    Path cert = readable(values, TCP_TLS_CERT_PATH);
    Path key = readable(values, TCP_TLS_KEY_PATH);
    pair(TCP_TLS_CERT_PATH, cert, TCP_TLS_KEY_PATH, key);
    Path clientCert = readable(values, TCP_TLS_CLIENT_CERT_PATH);
    Path clientKey = readable(values, TCP_TLS_CLIENT_KEY_PATH);
    pair(TCP_TLS_CLIENT_CERT_PATH, clientCert, TCP_TLS_CLIENT_KEY_PATH, clientKey);
    Path clientCa = readable(values, TCP_TLS_CLIENT_CA_CERT_PATH);
    if (clientCa != null && cert == null) {
      throw new ConfigException(
          TCP_TLS_CLIENT_CA_CERT_PATH.flag()
              + " needs "
              + TCP_TLS_CERT_PATH.flag()
              + ": only a TLS listener can ask for client certificates");
    }
    // as in Dynamo: a CA, insecure or a client certificate turns client TLS on (a client
    // certificate alone trusts the JVM's CAs); a server name without client TLS is unused
    Path ca = readable(values, TCP_TLS_CA_CERT_PATH);
    boolean insecure = values.value(TCP_TLS_INSECURE);
    String serverName = values.value(TCP_TLS_SERVER_NAME);
    return new TcpTls(
        cert,
        key,
        clientCa,
        ca,
        insecure,
        serverName,
        clientCert,
        clientKey,
        values.value(TCP_TLS_HANDSHAKE_TIMEOUT));
  }

  /** How plain engines' HTTPS servers are checked, and the certificate shown them. */
  static EngineTls engineTls(SettingValues values) {
    Path clientCert = readable(values, HTTP_WORKER_CLIENT_CERT_PATH);
    Path clientKey = readable(values, HTTP_WORKER_CLIENT_KEY_PATH);
    pair(HTTP_WORKER_CLIENT_CERT_PATH, clientCert, HTTP_WORKER_CLIENT_KEY_PATH, clientKey);
    return new EngineTls(readable(values, HTTP_WORKER_CA_CERT_PATH), clientCert, clientKey);
  }

  /**
   * The NATS server at {@code url} with its credentials and TLS settings. Only the pairs are
   * checked here; the files and the {@code tls://} rule are checked when a connection is made
   * ({@code events.nats.NatsOptions}), so a process that uses no NATS is not stopped by them.
   */
  static NatsServer nats(SettingValues values, String url) {
    Path clientCert = values.value(NATS_TLS_CLIENT_CERT_PATH);
    Path clientKey = values.value(NATS_TLS_CLIENT_KEY_PATH);
    pair(NATS_TLS_CLIENT_CERT_PATH, clientCert, NATS_TLS_CLIENT_KEY_PATH, clientKey);
    return new NatsServer(
        url,
        auth(values),
        values.value(NATS_TLS_CA_CERT_PATH),
        values.value(NATS_TLS_INSECURE),
        clientCert,
        clientKey);
  }

  private static NatsAuth auth(SettingValues values) {
    String user = values.value(NATS_AUTH_USERNAME);
    String password = values.value(NATS_AUTH_PASSWORD);
    if ((user == null) != (password == null)) {
      throw new ConfigException(
          NATS_AUTH_USERNAME.flag()
              + " and "
              + NATS_AUTH_PASSWORD.flag()
              + " must be given together");
    }
    if (user != null) {
      return NatsAuth.userPassword(user, password);
    }
    String token = values.value(NATS_AUTH_TOKEN);
    if (token != null) {
      return NatsAuth.token(token);
    }
    String seed = values.value(NATS_AUTH_NKEY);
    if (seed != null) {
      return NatsAuth.nkey(seed);
    }
    Path credentials = values.value(NATS_AUTH_CREDENTIALS_FILE);
    return credentials == null ? NatsAuth.NONE : NatsAuth.credentialsFile(credentials);
  }

  /** The file {@code setting} names, checked readable; null when not given. */
  static Path readable(SettingValues values, Setting<Path> setting) {
    Path path = values.value(setting);
    if (path != null && !Files.isReadable(path)) {
      throw new ConfigException(setting.flag() + " " + path + " cannot be read");
    }
    return path;
  }

  /** Refuses one of two files that go together without the other. */
  static void pair(Setting<Path> first, Path a, Setting<Path> second, Path b) {
    if ((a == null) != (b == null)) {
      throw new ConfigException(first.flag() + " and " + second.flag() + " must be given together");
    }
  }
}
