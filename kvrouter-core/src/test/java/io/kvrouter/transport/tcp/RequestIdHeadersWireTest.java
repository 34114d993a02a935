package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.PlainEngine;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.http.HttpRequestPlane;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.net.NetServer;
import io.vertx.junit5.VertxExtension;
import java.net.URI;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The request ids each request plane puts on the wire, read by a worker on a real socket: on the
 * TCP plane the frame's {@code request-id} (the router's id) and {@code x-request-id} (the
 * client's); to a plain engine one {@code X-Request-Id} holding both, unique per request.
 */
@ExtendWith(VertxExtension.class)
class RequestIdHeadersWireTest {
  private static PreprocessedRequest fromClient(String clientId) {
    PreprocessedRequest plain = TcpEndToEndTest.request(7);
    return new PreprocessedRequest(
        plain.model(),
        plain.tokenIds(),
        plain.stopConditions(),
        plain.samplingOptions(),
        plain.outputOptions(),
        plain.eosTokenIds(),
        plain.annotations(),
        plain.routing(),
        clientId);
  }

  @Test
  void theTcpPlane_sendsTheRoutersIdAndTheClients(Vertx vertx) throws Exception {
    BlockingQueue<Map<String, String>> headers = new LinkedBlockingQueue<>();
    NetServer worker =
        Await.result(
            vertx
                .createNetServer()
                .connectHandler(
                    socket -> {
                      RequestFrameDecoder decoder = new RequestFrameDecoder(RawPeers.MAX);
                      socket.handler(
                          chunk ->
                              decoder.decode(
                                  chunk,
                                  frame -> {
                                    headers.add(frame.headers());
                                    RawPeers.ack(socket, Ack.rejected("only reading headers"));
                                  }));
                    })
                .listen(0, "127.0.0.1"));
    RequestPlane plane =
        TcpTransport.client(
            vertx, TcpConfig.defaults("127.0.0.1", TcpConfig.DEFAULT_MAX_MESSAGE_SIZE));
    WorkerEndpoint endpoint =
        new WorkerEndpoint("raw", "127.0.0.1", worker.actualPort(), "generate");
    try {
      Await.failure(plane.send(endpoint, "router-1", fromClient("client-7")));
      assertThat(headers.poll(20, TimeUnit.SECONDS))
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("request-id", "router-1", "x-request-id", "client-7"));

      Await.failure(plane.send(endpoint, "router-2", TcpEndToEndTest.request(7)));
      assertThat(headers.poll(20, TimeUnit.SECONDS))
          .containsExactlyInAnyOrderEntriesOf(
              Map.of("request-id", "router-2", "x-request-id", "router-2"));
    } finally {
      Await.result(plane.close());
    }
  }

  @Test
  void aPlainEngine_getsTheClientsIdLeadingTheRouters(Vertx vertx) throws Exception {
    BlockingQueue<String> ids = new LinkedBlockingQueue<>();
    HttpServer engine =
        Await.result(
            vertx
                .createHttpServer()
                .requestHandler(
                    request -> {
                      ids.add(String.valueOf(request.getHeader("X-Request-Id")));
                      request.response().setStatusCode(400).end("{}");
                    })
                .listen(0, "127.0.0.1"));
    RequestPlane plane =
        HttpRequestPlane.create(
            vertx,
            TcpConfig.defaults("127.0.0.1", 1 << 20),
            8,
            io.kvrouter.config.EngineTls.DEFAULTS);
    WorkerEndpoint endpoint =
        WorkerEndpoint.http(
            "v1", URI.create("http://127.0.0.1:" + engine.actualPort()), PlainEngine.VLLM);
    try {
      // the same client id twice: the engine still sees two ids, each found by the client's
      Await.failure(plane.send(endpoint, "router-1", fromClient("client-7")));
      Await.failure(plane.send(endpoint, "router-2", fromClient("client-7")));
      Await.failure(plane.send(endpoint, "router-3", TcpEndToEndTest.request(7)));
      assertThat(ids.poll(20, TimeUnit.SECONDS)).isEqualTo("client-7-router-1");
      assertThat(ids.poll(20, TimeUnit.SECONDS)).isEqualTo("client-7-router-2");
      assertThat(ids.poll(20, TimeUnit.SECONDS)).isEqualTo("router-3");
    } finally {
      Await.result(plane.close());
    }
  }
}
