package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's half of one call-home: dials the frontend, identifies the stream, runs the engine
 * and writes its outputs. As in Dynamo, the prologue follows the engine's {@code generate()}
 * call: an engine that refuses the request there sends an error prologue (the frontend may take the
 * request elsewhere); a failure after that is an error item in the stream.
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
final class ResponsePublisher {
  private static final Logger LOG = LoggerFactory.getLogger(ResponsePublisher.class);

  /** How long to wait for the frontend to close after the last frame (Dynamo waits 10 s). */
  static final long LINGER_MS = 10_000;

  private final Vertx vertx;
  private final NetClient client;
  private final InferenceEngine engine;
  private final InboundRequest request;
  private final CallHomeFrames frames;
  private final TwoPartDecoder controlDecoder;
  private Context context;
  private NetSocket socket;
  private CoalescingWriter writer;
  private ResponseStream engineStream;
  private int hopsInFlight;
  private boolean prologueSent;
  private boolean finished;
  private boolean enginePaused;
  private long lingerTimer = -1;

  ResponsePublisher(
      Vertx vertx,
      NetClient client,
      InferenceEngine engine,
      InboundRequest request,
      CallHomeFrames frames) {
    this.vertx = vertx;
    this.client = client;
    this.engine = engine;
    this.request = request;
    this.frames = frames;
    // control frames are a few bytes; anything large is not a control frame
    this.controlDecoder = new TwoPartDecoder(64 * 1024);
  }

  void start() {
    client
        .connect(request.callHome().port(), request.callHome().host())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                connected(ar.result());
              } else {
                LOG.warn(
                    "request {}: cannot call home to {}: {}",
                    request.requestId(),
                    request.callHome(),
                    ar.cause().getMessage());
              }
            });
  }

  private void connected(NetSocket connected) {
    socket = connected;
    context = Vertx.currentContext();
    writer = new CoalescingWriter(socket, context);
    socket.handler(this::onControlBytes);
    socket.closeHandler(v -> onClosed());
    socket.drainHandler(v -> onDrain());
    socket.exceptionHandler(
        e -> LOG.debug("call-home of request {}: {}", request.requestId(), e.toString()));
    socket.write(frames.handshake(request.subject()));
    try {
      engineStream = engine.generate(request.requestId(), request.request());
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
    if (finished) {
      return;
    }
    sendPrologueOnce();
    write(frames.item(StreamItem.of(output)));
    if (!enginePaused && writer.writeQueueFull()) {
      enginePaused = true;
      engineStream.pause();
    }
  }

  private void complete() {
    if (finished) {
      return;
    }
    sendPrologueOnce();
    write(frames.completeFinal());
    write(frames.control(ControlMessage.SENTINEL));
    finish();
  }

  private void fail(Throwable error) {
    if (finished) {
      return;
    }
    String message =
        error.getMessage() == null ? error.getClass().getSimpleName() : error.getMessage();
    if (!prologueSent) {
      prologueSent = true;
      write(frames.prologue(new StreamPrologue(message)));
    } else {
      write(frames.item(StreamItem.failure(message)));
      write(frames.completeFinal());
      write(frames.control(ControlMessage.SENTINEL));
    }
    finish();
  }

  private void sendPrologueOnce() {
    if (!prologueSent) {
      prologueSent = true;
      write(frames.prologue(StreamPrologue.OK));
    }
  }

  private void write(Buffer frame) {
    writer.write(frame);
  }

  /** Nothing more to write: the frontend closes the socket; close it ourselves if it does not. */
  private void finish() {
    finished = true;
    if (lingerTimer < 0) {
      lingerTimer = vertx.setTimer(LINGER_MS, id -> socket.close());
    }
  }

  private void onControlBytes(Buffer chunk) {
    try {
      controlDecoder.decode(chunk, this::onControl);
    } catch (TcpCodecException e) {
      LOG.warn(
          "request {}: malformed control frame from the frontend: {}",
          request.requestId(),
          e.getMessage());
      cancelEngine();
      socket.close();
    }
  }

  private void onControl(TwoPartMessage frame) {
    if (!frame.hasHeader()) {
      throw new TcpCodecException("expected a header-only control frame");
    }
    ControlMessage control = WireJson.read(frame.header(), ControlMessage.class, "control message");
    if (control == ControlMessage.SENTINEL) {
      throw new TcpCodecException("a frontend does not send the sentinel");
    }
    LOG.debug("request {}: {} from the frontend", request.requestId(), control.wireName());
    cancelEngine();
    finish();
  }

  private void onDrain() {
    if (enginePaused && !finished) {
      enginePaused = false;
      engineStream.resume();
    }
  }

  private void onClosed() {
    if (lingerTimer >= 0) {
      vertx.cancelTimer(lingerTimer);
    }
    if (!finished) {
      LOG.debug("request {}: the frontend closed the response stream early", request.requestId());
      cancelEngine();
    }
  }

  private void cancelEngine() {
    boolean running = !finished;
    finished = true;
    if (running && engineStream != null) {
      engineStream.cancel();
    }
  }
}
