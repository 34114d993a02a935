package io.kvrouter.events.nats;

import io.kvrouter.config.NatsAuth;
import io.kvrouter.config.NatsServer;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The one place a {@link NatsServer} becomes jnats {@link Options}: its URL, its credentials
 * ({@link NatsAuth}: user and password, token, NKey seed or credentials file) and, for a {@code
 * tls://} URL, its TLS context: the JVM's trusted CAs, or the CA of {@code
 * --nats-tls-ca-cert-path}, or no check at all ({@code --nats-tls-insecure}), with the client
 * certificate of {@code --nats-tls-client-cert-path} when given. PEM files are read by Netty, so
 * the key must be PKCS#8, as etcd's.
 */
public final class NatsOptions {
  private NatsOptions() {}

  /**
   * A builder holding the server, its credentials and TLS; the caller adds the rest.
   *
   * @throws IllegalArgumentException when a TLS file cannot be read or parsed
   */
  public static Options.Builder builder(NatsServer server) {
    Options.Builder builder = new Options.Builder().server(server.url());
    NatsAuth auth = server.auth();
    switch (auth.kind()) {
      case NONE -> {}
      case USER_PASSWORD -> builder.userInfo(auth.user(), auth.secret());
      case TOKEN -> builder.token(auth.secret().toCharArray());
      case NKEY -> builder.authHandler(Nats.staticCredentials(null, auth.secret().toCharArray()));
      case CREDENTIALS_FILE ->
          builder.authHandler(Nats.credentials(auth.credentialsFile().toString()));
    }
    if (server.tls()) {
      builder.sslContext(sslContext(server));
    }
    return builder;
  }

  private static SSLContext sslContext(NatsServer server) {
    if (server.caCertPath() == null && !server.insecure() && server.clientCertPath() == null) {
      try {
        return SSLContext.getDefault();
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("the JVM has no default TLS context", e);
      }
    }
    SslContextBuilder tls = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
    if (server.insecure()) {
      tls.trustManager(InsecureTrustManagerFactory.INSTANCE);
    } else if (server.caCertPath() != null) {
      tls.trustManager(server.caCertPath().toFile());
    }
    if (server.clientCertPath() != null) {
      tls.keyManager(server.clientCertPath().toFile(), server.clientKeyPath().toFile());
    }
    try {
      return ((JdkSslContext) tls.build()).context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "NATS TLS files for " + server + " cannot be loaded: " + e.getMessage(), e);
    }
  }
}
