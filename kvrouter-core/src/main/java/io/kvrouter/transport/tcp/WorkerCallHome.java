package io.kvrouter.transport.tcp;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's end of one call-home connection, whatever the endpoint streams: dials the frontend,
 * names the stream in the handshake, writes frames (gathered per event-loop task), and hears the
 * frontend's {@code "stop"} or {@code "kill"}. Once the last frame is written ({@link #finish()}),
 * the frontend closes the socket; if it has not after {@link #LINGER_MS}, the worker does. The
 * frontend cancelling, or closing before the end, is reported to the {@link Listener}. Everything
 * after {@link #connect} runs on the socket's event loop.
 */
final class WorkerCallHome implements ResponseSink {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerCallHome.class);

  /** How long to wait for the frontend to close after the last frame (Dynamo waits 10 s). */
  static final long LINGER_MS = 10_000;

  private final Vertx vertx;
  private final PlaneClient client;
  private final InboundRequest request;
  private final CallHomeFrames frames;
  // control frames are a few bytes; anything large is not a control frame
  private final TwoPartDecoder controlDecoder = new TwoPartDecoder(64 * 1024);
  private Listener listener;
  private Context context;
  private NetSocket socket;
  private CoalescingWriter writer;
  private boolean finished;
  private long lingerTimer = -1;

  WorkerCallHome(Vertx vertx, PlaneClient client, InboundRequest request, CallHomeFrames frames) {
    this.vertx = vertx;
    this.client = client;
    this.request = request;
    this.frames = frames;
  }

  @Override
  public void connect(Listener listener) {
    this.listener = listener;
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
    socket.drainHandler(v -> listener.drained());
    socket.exceptionHandler(
        e -> LOG.debug("call-home of request {}: {}", request.requestId(), e.toString()));
    socket.write(frames.handshake(request.subject()));
    listener.connected();
  }

  @Override
  public Context context() {
    return context;
  }

  @Override
  public void prologue(StreamPrologue prologue) {
    writer.write(frames.prologue(prologue));
    if (!prologue.ok()) {
      finish();
    }
  }

  @Override
  public void data(Buffer envelope) {
    writer.write(frames.data(envelope));
  }

  @Override
  public void end() {
    writer.write(frames.control(ControlMessage.SENTINEL));
    finish();
  }

  @Override
  public boolean writeQueueFull() {
    return writer.writeQueueFull();
  }

  @Override
  public boolean finished() {
    return finished;
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
      cancel();
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
    cancel();
    finish();
  }

  private void onClosed() {
    if (lingerTimer >= 0) {
      vertx.cancelTimer(lingerTimer);
    }
    if (!finished) {
      LOG.debug("request {}: the frontend closed the response stream early", request.requestId());
      cancel();
    }
  }

  private void cancel() {
    boolean running = !finished;
    finished = true;
    if (running) {
      listener.cancelled();
    }
  }
}
