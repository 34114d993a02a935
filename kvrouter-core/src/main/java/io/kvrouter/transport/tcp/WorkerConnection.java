package io.kvrouter.transport.tcp;

import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request-plane connection on the worker: decodes request frames and writes exactly one ack per
 * frame, in arrival order. The request is checked completely (path, envelope, control header, body)
 * before it is acknowledged, so a refused request gets a rejection instead of a stream that never
 * opens. A frame that breaks the wire format or the size limit gets a {@code Read error} reply and
 * the connection is closed, as Dynamo's worker does. Runs on the socket's event loop.
 */
final class WorkerConnection {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerConnection.class);

  private final Vertx vertx;
  private final NetSocket socket;
  private final Map<String, InferenceEngine> engines;
  private final Map<String, JsonEndpoint> endpoints;
  private final NetClient callHomeClient;
  private final AtomicInteger callHomes;
  private final MuxClientPool muxPool;
  private final Set<ResponseStreamKind> accepted;
  private final TcpConfig config;
  private final RequestFrameDecoder decoder;
  private final CallHomeFrames frames;

  WorkerConnection(
      Vertx vertx,
      NetSocket socket,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      NetClient callHomeClient,
      AtomicInteger callHomes,
      MuxClientPool muxPool,
      Set<ResponseStreamKind> accepted,
      TcpConfig config) {
    this.callHomes = callHomes;
    this.muxPool = muxPool;
    this.accepted = accepted;
    this.vertx = vertx;
    this.socket = socket;
    this.engines = engines;
    this.endpoints = endpoints;
    this.callHomeClient = callHomeClient;
    this.config = config;
    this.decoder = new RequestFrameDecoder(config.maxMessageSize());
    this.frames = new CallHomeFrames(config.maxMessageSize());
  }

  void start() {
    socket.handler(this::onData);
    socket.exceptionHandler(
        e -> LOG.debug("request-plane connection {}: {}", socket.remoteAddress(), e.toString()));
  }

  private void onData(Buffer chunk) {
    try {
      decoder.decode(chunk, this::onRequest);
    } catch (TcpCodecException e) {
      LOG.warn(
          "closing request-plane connection from {}: {}", socket.remoteAddress(), e.getMessage());
      socket.write(AckEncoder.encode(Ack.rejected("Read error: " + e.getMessage())));
      socket.close();
    }
  }

  private void onRequest(RequestFrame frame) {
    if (frame.path() == null) {
      ack(Ack.rejected("Invalid endpoint path"));
      return;
    }
    InferenceEngine engine = engines.get(frame.path());
    JsonEndpoint endpoint = endpoints.get(frame.path());
    if (engine == null && endpoint == null) {
      ack(Ack.unavailable("unknown endpoint " + frame.path()));
      return;
    }
    InboundRequest request;
    PreprocessedRequest generate = null;
    try {
      request = InboundRequest.parse(frame.payload(), config.maxMessageSize(), accepted);
      if (engine != null) {
        generate = request.request();
      }
    } catch (TcpCodecException e) {
      LOG.warn("refusing a request from {}: {}", socket.remoteAddress(), e.getMessage());
      ack(Ack.unavailable("invalid request: " + e.getMessage()));
      return;
    }
    ack(Ack.ACCEPTED);
    ResponseSink sink;
    if (request.mux() != null) {
      sink = new MuxResponseSink(muxPool, request.mux());
    } else {
      callHomes.incrementAndGet();
      sink = new WorkerCallHome(vertx, callHomeClient, request, frames);
    }
    if (engine != null) {
      new ResponsePublisher(engine, generate, request, sink).start();
    } else {
      new AnswerPublisher(endpoint, request.body().getBytes(), sink, config.maxMessageSize())
          .start();
    }
  }

  private void ack(Ack ack) {
    socket.write(AckEncoder.encode(ack));
  }
}
