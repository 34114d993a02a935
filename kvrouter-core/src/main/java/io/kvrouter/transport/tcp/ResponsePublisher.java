package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Context;
import io.vertx.core.Vertx;

/**
 * The worker's half of one generate call: runs the engine and writes its outputs over a {@link
 * ResponseSink}: a call-home connection or a stream of a multiplexed one. As in Dynamo, the
 * prologue follows the engine's {@code generate()} call: an engine that refuses the request there
 * sends an error prologue (the frontend may take the request elsewhere); a failure after that is an
 * error item in the stream.
 *
 * <pre>
 * handshake, generate(), prologue, item*, complete_final, sentinel, [wait for FIN]
 * </pre>
 *
 * <p>The engine is paused while the socket's write queue is full and resumed when it drains. A
 * {@code "stop"} or {@code "kill"} from the frontend, or the socket closing before the end, cancels
 * the engine stream; nothing more is written after a cancel, not even the sentinel. Engine
 * callbacks may come from any thread and are moved onto the socket's event loop, in order.
 */
final class ResponsePublisher implements ResponseSink.Listener {
  private final InferenceEngine engine;
  private final String requestId;
  private final PayloadCodec codec;
  private final PreprocessedRequest request;
  private final ResponseSink callHome;
  private ResponseStream engineStream;
  private int hopsInFlight;
  private boolean prologueSent;
  private boolean enginePaused;

  ResponsePublisher(
      InferenceEngine engine,
      PreprocessedRequest request,
      InboundRequest inbound,
      ResponseSink callHome) {
    this.engine = engine;
    this.requestId = inbound.requestId();
    this.codec = inbound.codec();
    this.request = request;
    this.callHome = callHome;
  }

  void start() {
    callHome.connect(this);
  }

  @Override
  public void connected() {
    try {
      engineStream = engine.generate(requestId, request);
    } catch (RuntimeException e) {
      fail(e);
      return;
    }
    sendPrologueOnce();
    engineStream.subscribe(
        new ResponseStream.Subscriber() {
          @Override
          public void onOutput(EngineOutput output) {
            onContext(() -> emit(output));
          }

          @Override
          public void onComplete() {
            onContext(ResponsePublisher.this::complete);
          }

          @Override
          public void onError(Throwable error) {
            onContext(() -> fail(error));
          }
        });
  }

  /**
   * Runs {@code action} on the socket's context: at once when called there and nothing is queued
   * (the usual case, an engine on the same event loop), else queued behind what is, keeping order.
   */
  private void onContext(Runnable action) {
    Context context = callHome.context();
    boolean direct;
    synchronized (this) {
      direct = Vertx.currentContext() == context && hopsInFlight == 0;
      if (!direct) {
        hopsInFlight++;
      }
    }
    if (direct) {
      action.run();
      return;
    }
    context.runOnContext(
        v -> {
          synchronized (this) {
            hopsInFlight--;
          }
          action.run();
        });
  }

  private void emit(EngineOutput output) {
    if (callHome.finished()) {
      return;
    }
    sendPrologueOnce();
    callHome.data(ResponseEnvelope.item(StreamItem.of(output), codec));
    if (!enginePaused && callHome.writeQueueFull()) {
      enginePaused = true;
      engineStream.pause();
    }
  }

  private void complete() {
    if (callHome.finished()) {
      return;
    }
    sendPrologueOnce();
    callHome.data(ResponseEnvelope.last(codec));
    callHome.end();
  }

  private void fail(Throwable error) {
    if (callHome.finished()) {
      return;
    }
    String message =
        error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
    if (!prologueSent) {
      prologueSent = true;
      callHome.prologue(new StreamPrologue(message));
    } else {
      callHome.data(ResponseEnvelope.item(StreamItem.failure(message), codec));
      callHome.data(ResponseEnvelope.last(codec));
      callHome.end();
    }
  }

  private void sendPrologueOnce() {
    if (!prologueSent) {
      prologueSent = true;
      callHome.prologue(StreamPrologue.OK);
    }
  }

  @Override
  public void drained() {
    if (enginePaused && !callHome.finished()) {
      enginePaused = false;
      engineStream.resume();
    }
  }

  @Override
  public void cancelled() {
    if (engineStream != null) {
      engineStream.cancel();
    }
  }
}
