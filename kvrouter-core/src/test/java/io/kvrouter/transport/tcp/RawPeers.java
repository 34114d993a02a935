package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetSocket;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Hand-driven counterparts for socket tests: a worker whose every move the test scripts, and a
 * frontend call-home listener that records the frames a worker sends.
 */
final class RawPeers {
  static final int MAX = TcpConfig.DEFAULT_MAX_MESSAGE_SIZE;
  static final CallHomeFrames FRAMES = new CallHomeFrames(MAX);

  private RawPeers() {}

  /** A worker server that decodes request frames and hands each to {@code script}. */
  static Future<NetServer> worker(Vertx vertx, BiConsumer<NetSocket, InboundRequest> script) {
    return worker(vertx, script, new AtomicInteger());
  }

  /** A scripted worker that also counts the connections it accepts. */
  static Future<NetServer> worker(
      Vertx vertx, BiConsumer<NetSocket, InboundRequest> script, AtomicInteger connections) {
    return vertx
        .createNetServer()
        .connectHandler(
            socket -> {
              connections.incrementAndGet();
              RequestFrameDecoder decoder = new RequestFrameDecoder(MAX);
              socket.handler(
                  chunk ->
                      decoder.decode(
                          chunk,
                          frame ->
                              script.accept(socket, InboundRequest.parse(frame.payload(), MAX))));
            })
        .listen(0, "127.0.0.1");
  }

  /** Dials the frontend back for {@code request} and sends the handshake. */
  static Future<NetSocket> callHome(Vertx vertx, InboundRequest request) {
    return vertx
        .createNetClient()
        .connect(request.callHome().port(), request.callHome().host())
        .onSuccess(socket -> socket.write(FRAMES.handshake(request.subject())));
  }

  static void ack(NetSocket socket, Ack ack) {
    socket.write(AckEncoder.encode(ack));
  }

  /** A frontend's call-home listener that queues every frame a worker sends. */
  static final class Frontend {
    final BlockingQueue<TwoPartMessage> frames = new LinkedBlockingQueue<>();
    final CompletableFuture<NetSocket> socket = new CompletableFuture<>();
    final CompletableFuture<Void> closed = new CompletableFuture<>();
    NetServer server;

    static Frontend listen(Vertx vertx) throws Exception {
      Frontend frontend = new Frontend();
      frontend.server =
          Await.result(
              vertx
                  .createNetServer()
                  .connectHandler(
                      socket -> {
                        TwoPartDecoder decoder = new TwoPartDecoder(MAX);
                        socket.handler(chunk -> decoder.decode(chunk, frontend.frames::add));
                        socket.closeHandler(v -> frontend.closed.complete(null));
                        frontend.socket.complete(socket);
                      })
                  .listen(0, "127.0.0.1"));
      return frontend;
    }

    String address() {
      return "127.0.0.1:" + server.actualPort();
    }

    TwoPartMessage next() throws InterruptedException {
      TwoPartMessage frame = frames.poll(20, TimeUnit.SECONDS);
      if (frame == null) {
        throw new AssertionError("no frame from the worker");
      }
      return frame;
    }

    void write(Buffer frame) throws Exception {
      socket.get(20, TimeUnit.SECONDS).write(frame);
    }

    void close() throws Exception {
      socket.get(20, TimeUnit.SECONDS).close();
    }
  }
}
