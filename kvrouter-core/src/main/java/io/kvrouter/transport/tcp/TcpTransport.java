package io.kvrouter.transport.tcp;

import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.Set;

/**
 * Entry points of Dynamo's classic TCP request plane for the composition root: the frontend's
 * client and a worker-side server. See the package Javadoc for the pinned Dynamo version.
 */
public final class TcpTransport {

  private TcpTransport() {}

  /**
   * A request plane that sends requests to workers over pooled TCP connections and receives their
   * responses on a call-home listener bound to {@code config.responseStreamHost()} and {@code
   * responseStreamPort()}. The listener binds in the background; if it cannot, every send and probe
   * fails with an {@link IllegalStateException} that says why.
   */
  public static RequestPlane client(Vertx vertx, TcpConfig config) {
    return new TcpRequestPlane(vertx, config, null);
  }

  /**
   * The same plane, which also reaches Dynamo workers that advertise a URL ({@link
   * io.kvrouter.protocol.WorkerEndpoint#isDynamoHttp()}) through {@code urls}, on the same
   * call-home listener.
   */
  public static RequestPlane client(Vertx vertx, TcpConfig config, UrlDelivery urls) {
    return new TcpRequestPlane(vertx, config, urls);
  }

  /**
   * Serves {@code engines} to Dynamo-compatible frontends on {@code host:port} (0 for a free port),
   * routing each request by its path, e.g. {@code generate}.
   */
  public static Future<WorkerServer> server(
      Vertx vertx, String host, int port, Map<String, InferenceEngine> engines, TcpConfig config) {
    return server(vertx, host, port, engines, Map.of(), config);
  }

  /**
   * Serves {@code engines} as above, and {@code endpoints} (by path too) to frontends that {@link
   * RequestPlane#ask ask} them a question.
   */
  public static Future<WorkerServer> server(
      Vertx vertx,
      String host,
      int port,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config) {
    return server(
        vertx, host, port, engines, endpoints, config, Set.of(ResponseStreamKind.values()));
  }

  /**
   * Serves {@code engines} and {@code endpoints} as above, answering only on the response
   * transports in {@code accepted}: a worker that emulates Dynamo v1.5 takes call-home only, one of
   * Dynamo's latest main mux only; a request asking for another transport is refused in that
   * release's words.
   */
  public static Future<WorkerServer> server(
      Vertx vertx,
      String host,
      int port,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      TcpConfig config,
      Set<ResponseStreamKind> accepted) {
    return TcpWorkerServer.start(vertx, host, port, engines, endpoints, config, accepted);
  }
}
