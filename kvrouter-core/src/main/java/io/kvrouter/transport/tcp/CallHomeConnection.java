package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.KvCapacityRefusal;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection a worker opened to the call-home listener, up to the point where its response
 * stream opens: the handshake names the pending call, the prologue settles it, and from then on the
 * frames belong to the call's {@link CallHomeReader}. A handshake of kind {@code response_mux}
 * makes it a multiplexed connection instead, handed to a {@link FrontendMuxConnection}: Dynamo's
 * frontend takes both on one listener. Runs on the socket's event loop.
 */
final class CallHomeConnection {
  private static final Logger LOG = LoggerFactory.getLogger(CallHomeConnection.class);

  /** How long a worker may take to identify itself after connecting (Dynamo waits 10 s). */
  static final long HANDSHAKE_TIMEOUT_MS = 10_000;

  private enum State {
    HANDSHAKE,
    PROLOGUE,
    STREAMING,
    MUX,
    CLOSED
  }

  private final Vertx vertx;
  private final NetSocket socket;
  private final CallHomeListener listener;
  private final TwoPartDecoder decoder;
  private final CallHomeFrames frames;
  private State state = State.HANDSHAKE;
  private PendingCall<?> call;
  private CallHomeReader stream;
  private FrontendMuxConnection mux;
  private long handshakeTimer;

  CallHomeConnection(Vertx vertx, NetSocket socket, CallHomeListener listener, int maxMessageSize) {
    this.vertx = vertx;
    this.socket = socket;
    this.listener = listener;
    this.decoder = new TwoPartDecoder(maxMessageSize);
    this.frames = new CallHomeFrames(maxMessageSize);
  }

  void start() {
    handshakeTimer =
        vertx.setTimer(
            HANDSHAKE_TIMEOUT_MS,
            id -> {
              if (state == State.HANDSHAKE) {
                LOG.warn(
                    "no call-home handshake from {} within {} ms",
                    socket.remoteAddress(),
                    HANDSHAKE_TIMEOUT_MS);
                state = State.CLOSED;
                socket.close();
              }
            });
    socket.handler(this::onData);
    socket.closeHandler(v -> onClosed());
    socket.endHandler(v -> onEnd());
    socket.exceptionHandler(
        e -> LOG.debug("call-home connection {}: {}", socket.remoteAddress(), e.toString()));
  }

  private void onData(Buffer chunk) {
    try {
      decoder.decode(chunk, this::onFrame);
      if (state == State.MUX) {
        if (decoder.in.readable() > 0) {
          throw new TcpCodecException("response mux frames before the connection ack");
        }
        mux.start();
      }
    } catch (TcpCodecException e) {
      LOG.warn("closing call-home connection from {}: {}", socket.remoteAddress(), e.getMessage());
      abort(e.getMessage());
    }
  }

  private void onFrame(TwoPartMessage frame) {
    switch (state) {
      case HANDSHAKE -> onHandshake(frame);
      case PROLOGUE -> onPrologue(frame);
      case STREAMING -> onStreamFrame(frame);
      case MUX -> throw new TcpCodecException("a TwoPart frame before the connection ack");
      case CLOSED -> {
        // the connection is being torn down; later frames in the same read are dropped
      }
    }
  }

  private void onStreamFrame(TwoPartMessage frame) {
    if (frame.hasHeader()) {
      ControlMessage.requireSentinel(frame);
      stream.onEnd();
    } else if (frame.hasBody()) {
      stream.onItem(frame.body());
    }
  }

  private void onHandshake(TwoPartMessage frame) {
    vertx.cancelTimer(handshakeTimer);
    Buffer header = headerOnly(frame, "handshake");
    JsonNode json = WireJson.read(header, JsonNode.class, "handshake");
    if (MuxHandshake.isMux(json)) {
      MuxHandshake handshake = WireJson.read(header, MuxHandshake.class, "response mux handshake");
      mux = listener.acceptMux(socket, handshake);
      state = State.MUX;
      return;
    }
    CallHomeHandshake handshake = WireJson.read(header, CallHomeHandshake.class, "handshake");
    if (!ResponseStreamInfo.RESPONSE.equals(handshake.streamType())
        || handshake.subject() == null) {
      throw new TcpCodecException("unsupported call-home handshake " + handshake);
    }
    call = listener.claim(handshake.subject());
    if (call == null || !call.attach(new SocketLink(socket, frames))) {
      // the request already failed (timeout, rejection, shutdown): closing tells the worker to stop
      LOG.debug("call-home for unknown or settled subject {}", handshake.subject());
      state = State.CLOSED;
      socket.close();
      return;
    }
    state = State.PROLOGUE;
  }

  private void onPrologue(TwoPartMessage frame) {
    StreamPrologue prologue =
        WireJson.read(headerOnly(frame, "prologue"), StreamPrologue.class, "prologue");
    if (!prologue.ok()) {
      state = State.CLOSED;
      KvCapacityRefusal.detail(prologue.error())
          .ifPresentOrElse(
              call::refuseAsNeverFitting,
              () -> call.refuse("worker failed before streaming: " + prologue.error()));
      return;
    }
    state = State.STREAMING;
    stream = call.open(Vertx.currentContext(), new SocketLink(socket, frames));
  }

  /**
   * The socket closed. While streaming, frames Vert.x still holds for the (paused) socket are
   * delivered after this, so the stream stays open to them until {@link #onEnd}.
   */
  private void onClosed() {
    vertx.cancelTimer(handshakeTimer);
    if (state == State.STREAMING) {
      stream.onSocketClosed();
      return;
    }
    State was = state;
    state = State.CLOSED;
    if (was == State.PROLOGUE) {
      call.fail("call-home connection closed before the prologue", null);
    }
  }

  /** Every byte the worker sent has been delivered (Vert.x signals this after the close). */
  private void onEnd() {
    if (state == State.STREAMING) {
      state = State.CLOSED;
      stream.onSocketEnd();
    }
  }

  private void abort(String reason) {
    State was = state;
    state = State.CLOSED;
    switch (was) {
      case PROLOGUE -> call.fail("malformed response stream: " + reason, null);
      case STREAMING -> stream.onProtocolError(reason);
      default -> socket.close();
    }
  }

  private static Buffer headerOnly(TwoPartMessage frame, String what) {
    if (!frame.hasHeader() || frame.hasBody()) {
      throw new TcpCodecException("expected a header-only " + what + " frame");
    }
    return frame.header();
  }
}
