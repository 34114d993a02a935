package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;

/**
 * The client every outgoing connection of the TCP request plane is opened with (requests, health
 * probes, call-home and mux response streams): a Vert.x {@link NetClient} with the plane's socket
 * and TLS options, which also names the server to expect when {@code --tcp-tls-server-name} is set.
 */
final class PlaneClient {
  private final NetClient client;
  private final TcpConfig config;

  PlaneClient(NetClient client, TcpConfig config) {
    this.client = client;
    this.config = config;
  }

  static PlaneClient create(Vertx vertx, TcpConfig config) {
    return new PlaneClient(vertx.createNetClient(TcpTlsOptions.client(config)), config);
  }

  Future<NetSocket> connect(int port, String host) {
    return client.connect(TcpTlsOptions.connect(config, host, port));
  }

  Future<Void> close() {
    return client.close();
  }
}
