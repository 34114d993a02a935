package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.config.TcpTls;
import io.kvrouter.transport.PemFiles;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.ConnectOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.TCPSSLOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The socket options of the TCP request plane, with its TLS ({@link TcpTls}, Dynamo's {@code
 * DYN_TCP_TLS_*}): every listener and every client of the plane is made here, so the router and the
 * worker, requests and response streams, speak TLS alike.
 */
final class TcpTlsOptions {
  private static final Logger log = LoggerFactory.getLogger(TcpTlsOptions.class);

  private TcpTlsOptions() {}

  /**
   * Warns, as Dynamo does, when the listener speaks TLS but this process dials in plain text: its
   * peers' listeners are then most likely TLS too, and every connection to them would fail.
   */
  static void warnIfOneSided(TcpTls tls) {
    if (tls.server() && !tls.client()) {
      log.warn(
          "the TCP request plane's listener speaks TLS (--tcp-tls-cert-path) but its connections"
              + " go out in plain text: give --tcp-tls-ca-cert-path (or --tcp-tls-insecure) too");
    }
    if (tls.serverName() != null && !tls.client()) {
      log.warn(
          "--tcp-tls-server-name is unused: connections go out in plain text without"
              + " --tcp-tls-ca-cert-path (or --tcp-tls-insecure)");
    }
  }

  /** A listener's options: TLS with the server certificate, client certificates if asked. */
  static NetServerOptions server(TcpConfig config) {
    TcpTls tls = config.tls();
    NetServerOptions options = new NetServerOptions().setTcpNoDelay(true);
    if (tls.server()) {
      handshake(options.setSsl(true), tls)
          .setKeyCertOptions(PemFiles.keyCert(tls.certPath(), tls.keyPath()));
      if (tls.mutual()) {
        options
            .setClientAuth(ClientAuth.REQUIRED)
            .setTrustOptions(PemFiles.trust(tls.clientCaCertPath()));
      }
    }
    return options;
  }

  /**
   * A client's options: TLS when the client side is set, checking the server's certificate and host
   * name against the CA (or nothing, insecure), presenting the client certificate if given.
   */
  static NetClientOptions client(TcpConfig config) {
    TcpTls tls = config.tls();
    NetClientOptions options =
        new NetClientOptions()
            .setTcpNoDelay(true)
            .setConnectTimeout(
                (int) Math.min(Integer.MAX_VALUE, config.connectTimeout().toMillis()));
    if (tls.client()) {
      handshake(options.setSsl(true), tls);
      if (tls.insecure()) {
        options.setTrustAll(true).setHostnameVerificationAlgorithm("");
      } else {
        options.setHostnameVerificationAlgorithm("HTTPS");
        if (tls.caCertPath() != null) { // else the JVM's trusted CAs
          options.setTrustOptions(PemFiles.trust(tls.caCertPath()));
        }
      }
      if (tls.clientCertPath() != null) {
        options.setKeyCertOptions(PemFiles.keyCert(tls.clientCertPath(), tls.clientKeyPath()));
      }
    }
    return options;
  }

  /**
   * Where to connect: {@code host:port}. With {@code --tcp-tls-server-name} the socket still goes
   * to {@code host:port}, but the TLS peer is that name: it is sent in SNI and it alone is looked
   * for in the server's certificate (the host dialled no longer counts).
   */
  static ConnectOptions connect(TcpConfig config, String host, int port) {
    // a connect's own options decide TLS, whatever the client's say
    ConnectOptions options = new ConnectOptions().setPort(port).setSsl(config.tls().client());
    String serverName = config.tls().serverName();
    if (serverName != null && config.tls().client()) {
      return options
          .setHost(serverName)
          .setSniServerName(serverName)
          .setRemoteAddress(SocketAddress.inetSocketAddress(port, host));
    }
    return options.setHost(host);
  }

  /**
   * Reads every certificate and key the plane's TLS names, now: Vert.x would read them only at the
   * first connection, so a broken file would start a router whose every worker then fails.
   *
   * @throws IllegalArgumentException naming what does not load
   */
  static void load(Vertx vertx, TcpConfig config) {
    List<TCPSSLOptions> options = new ArrayList<>();
    if (config.tls().server()) {
      options.add(server(config));
    }
    if (config.tls().client()) {
      options.add(client(config));
    }
    PemFiles.loadNow(vertx, "--tcp-tls-*", options.toArray(new TCPSSLOptions[0]));
  }

  private static <T extends TCPSSLOptions> T handshake(T options, TcpTls tls) {
    options
        .setSslHandshakeTimeout(tls.handshakeTimeout().toMillis())
        .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
    return options;
  }
}
