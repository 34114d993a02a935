package io.kvrouter.transport.httprpc;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.Hosts;
import io.kvrouter.common.MachineAddress;
import io.kvrouter.config.HttpRpcServerConfig;
import io.kvrouter.transport.tcp.CallHomeServer;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of Dynamo's HTTP request plane, as Dynamo's {@code SharedHttpServer} served it
 * (lib/runtime/src/pipeline/network/ingress/http_endpoint.rs before its removal): one HTTP server
 * for all of a worker's endpoints, each at {@code POST {root}/{endpoint}}, HTTP/1.1 and HTTP/2 with
 * prior knowledge (h2c) on the same port.
 *
 * <pre>
 * POST {root}/{endpoint}, body = TwoPart envelope   -> 202, empty; then served: the response goes
 *                                                      back over TCP call-home (CallHomeServer)
 * POST {root}/{unknown}                              -> 404 "Endpoint not found"
 * another method on an endpoint                      -> 405
 * a body over the largest message                    -> 413, the rest of the body read and dropped
 * </pre>
 *
 * <p>As in Dynamo, the acknowledgement comes before the envelope is decoded: an empty body (a
 * health probe) or a malformed one has had its 202 and is dropped, and the frontend hears nothing
 * more.
 */
public final class HttpRpcServer {
  private static final Logger LOG = LoggerFactory.getLogger(HttpRpcServer.class);
  private static final FaultLog FAULTS = FaultLog.of(LOG, "requests refused on HTTP");

  static final String NOT_FOUND = "Endpoint not found";

  private final HttpServer http;
  private final CallHomeServer server;
  private final Map<String, String> urls;

  private HttpRpcServer(HttpServer http, CallHomeServer server, Map<String, String> urls) {
    this.http = http;
    this.server = server;
    this.urls = urls;
  }

  /**
   * Serves every path of {@code server} (its endpoint names) under {@code config.rootPath()} on
   * {@code config}'s host and port, refusing bodies over {@code maxMessageSize} bytes.
   */
  public static Future<HttpRpcServer> start(
      Vertx vertx, HttpRpcServerConfig config, CallHomeServer server, int maxMessageSize) {
    // bound to the configured address (this machine's when none, as Dynamo's default), advertised
    // as routers reach it: a wildcard stands for this machine's address
    String host = config.host() != null ? config.host() : MachineAddress.firstIpv4();
    String advertised = MachineAddress.advertised(host);
    String prefix = config.rootPath() + "/";
    HttpServer http =
        vertx
            .createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
            .requestHandler(request -> handle(request, prefix, server, maxMessageSize));
    return http.listen(config.port(), host)
        .onFailure(e -> server.close())
        .map(
            bound -> {
              Map<String, String> urls = new LinkedHashMap<>();
              String base =
                  "http://" + Hosts.bracketed(advertised) + ":" + bound.actualPort() + prefix;
              server.paths().forEach(path -> urls.put(path, base + path));
              return new HttpRpcServer(bound, server, Map.copyOf(urls));
            });
  }

  private static void handle(
      HttpServerRequest request, String prefix, CallHomeServer server, int maxMessageSize) {
    String path = request.path();
    String endpoint = path.startsWith(prefix) ? path.substring(prefix.length()) : null;
    if (endpoint == null || !server.paths().contains(endpoint)) {
      request.response().setStatusCode(404).end(endpoint == null ? "" : NOT_FOUND);
      return;
    }
    if (request.method() != HttpMethod.POST) {
      request.response().setStatusCode(405).putHeader("allow", "POST").end();
      return;
    }
    String length = request.getHeader("content-length");
    if (length != null && tooLong(length, maxMessageSize)) {
      refuseAsTooLarge(request);
      return;
    }
    if ("100-continue".equalsIgnoreCase(request.getHeader("expect"))) {
      request.response().writeContinue();
    }
    Buffer body = Buffer.buffer();
    request.handler(
        chunk -> {
          if (request.response().ended()) {
            return; // refused: the rest of the body is dropped
          }
          if (body.length() + chunk.length() > maxMessageSize) {
            refuseAsTooLarge(request);
            return;
          }
          body.appendBuffer(chunk);
        });
    request.endHandler(
        end -> {
          if (request.response().ended()) {
            return;
          }
          request.response().setStatusCode(202).end();
          if (body.length() == 0) {
            return; // a health probe: the acknowledgement was the answer
          }
          String refused = server.serve(endpoint, body);
          if (refused != null) {
            FAULTS.fault(path + ": " + refused);
          }
        });
  }

  /**
   * 413, the connection kept: the rest of the body is read (by its length, or its chunks) and
   * dropped. Closing it instead would reset the connection under a client still sending, which then
   * sees a lost connection rather than the 413; on HTTP/2 it would end other requests too.
   */
  private static void refuseAsTooLarge(HttpServerRequest request) {
    request.response().setStatusCode(413).end();
  }

  private static boolean tooLong(String length, int maxMessageSize) {
    try {
      return Long.parseLong(length) > maxMessageSize;
    } catch (NumberFormatException e) {
      return true;
    }
  }

  /** The URL of each served endpoint, by endpoint name, as the worker advertises it. */
  public Map<String, String> urlsByEndpoint() {
    return urls;
  }

  /** The port it listens on. */
  public int port() {
    return http.actualPort();
  }

  /** Stops listening and closes the call-home client; streams still running end. */
  public Future<Void> close() {
    return Future.join(http.close(), server.close()).mapEmpty();
  }
}
