package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.KvCapacityRefusal;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frontend's end of one {@code tcp_response_mux_v1} connection a worker opened (after its
 * handshake, see {@link MuxHandshake}): many response streams, each named by the stream id its
 * request carried ({@link ResponseMuxInfo}). A stream's {@code Prologue} claims its pending call;
 * {@code Data} goes to the call's reader; {@code End} ends it; {@code Reset} breaks it. Runs on the
 * socket's event loop, which is also the event loop of every stream's reader.
 *
 * <p>Flow control, as the worker in Dynamo's {@code tcp/mux/client.rs} (06d22825) expects it: every
 * {@code Data} frame (header included) costs the worker that many credits of the stream's window
 * and of the connection's window. The connection's are given back by a cumulative {@code
 * ConnectionAck} of every {@code Data} byte decoded, whatever its stream's state, so the connection
 * never stalls on one stream; a stream's come back through {@link MuxStreamLink} as its reader
 * consumes. Both are sent once {@link #CREDIT_UPDATE_BYTES} have gathered, and what is left after
 * {@link #CREDIT_FLUSH_MS} (Dynamo's {@code RESPONSE_MUX_CREDIT_UPDATE_BYTES} and {@code
 * _INTERVAL}; how Dynamo's frontend paces them was not read). Nothing here pauses the socket: a
 * slow stream holds back its own credits only.
 *
 * <p>When the connection breaks (closed, or a frame that breaks the format), every stream on it
 * fails as a broken worker stream. Frames for a stream the frontend does not know (one it killed,
 * say) are answered with {@code Reset}, as Dynamo's worker does the other way round.
 */
final class FrontendMuxConnection {
  private static final Logger LOG = LoggerFactory.getLogger(FrontendMuxConnection.class);

  static final long CREDIT_UPDATE_BYTES = 65_536;
  static final long CREDIT_FLUSH_MS = 1;

  private final Vertx vertx;
  private final NetSocket socket;
  private final Context context;
  private final CallHomeListener listener;
  private final int maxMessageSize;
  private final MuxFrameDecoder decoder;
  private final CoalescingWriter writer;
  private final Map<UUID, MuxStreamLink> streams = new HashMap<>();
  private final Map<UUID, Long> pendingCredits = new LinkedHashMap<>();
  private long decodedDataBytes;
  private long ackedDataBytes;
  private long flushTimer = -1;
  private boolean closed;

  FrontendMuxConnection(
      Vertx vertx, NetSocket socket, CallHomeListener listener, int maxMessageSize) {
    this.vertx = vertx;
    this.socket = socket;
    this.context = Vertx.currentContext();
    this.listener = listener;
    this.maxMessageSize = maxMessageSize;
    this.decoder = new MuxFrameDecoder(maxMessageSize);
    this.writer = new CoalescingWriter(socket, context);
  }

  /** Answers the handshake with the connection ack and reads mux frames from now on. */
  void start() {
    socket.handler(this::onData);
    socket.closeHandler(v -> onClosed());
    socket.endHandler(v -> {});
    socket.write(MuxHandshake.ack(maxMessageSize));
  }

  private void onData(Buffer chunk) {
    if (closed) {
      return;
    }
    try {
      decoder.decode(chunk, this::onFrame);
    } catch (TcpCodecException e) {
      LOG.warn(
          "closing response mux connection from {}: {}", socket.remoteAddress(), e.getMessage());
      breakAll("sent a malformed response mux frame: " + e.getMessage(), true);
      socket.close();
    }
  }

  private void onFrame(MuxFrame frame) {
    if (closed) {
      return;
    }
    if (!frame.kind().fromWorker()) {
      throw new TcpCodecException("a worker does not send " + frame.kind() + " frames");
    }
    switch (frame.kind()) {
      case PROLOGUE -> onPrologue(frame);
      case DATA -> onData(frame);
      case END -> {
        MuxStreamLink link = streams.remove(frame.streamId());
        if (link != null) {
          link.reader().onEnd();
        }
      }
      case RESET -> {
        MuxStreamLink link = streams.remove(frame.streamId());
        if (link != null) {
          LOG.debug("worker reset response stream {}: {}", frame.streamId(), frame.resetReason());
          link.reader().onSocketEnd();
        }
      }
      default -> throw new IllegalStateException("unreachable: " + frame.kind());
    }
  }

  private void onPrologue(MuxFrame frame) {
    UUID id = frame.streamId();
    if (streams.containsKey(id)) {
      MuxStreamLink link = streams.get(id);
      link.reader().onProtocolError("a second prologue on stream " + id);
      return;
    }
    PendingCall<?> call = listener.claim(id.toString());
    if (call == null) {
      // late (the request already failed) or never ours: the worker drops the stream
      LOG.debug("response mux prologue for unknown or settled stream {}", id);
      send(MuxFrame.reset(id, "unknown response stream"));
      return;
    }
    StreamPrologue prologue;
    try {
      prologue = WireJson.read(frame.payload(), StreamPrologue.class, "prologue");
    } catch (TcpCodecException e) {
      send(MuxFrame.reset(id, "malformed prologue"));
      call.fail("malformed response stream: " + e.getMessage(), null);
      return;
    }
    if (!prologue.ok()) {
      KvCapacityRefusal.detail(prologue.error())
          .ifPresentOrElse(
              call::refuseAsNeverFitting,
              () -> call.refuse("worker failed before streaming: " + prologue.error()));
      return;
    }
    MuxStreamLink link = new MuxStreamLink(this, id);
    streams.put(id, link);
    link.bind(call.open(context, link));
  }

  private void onData(MuxFrame frame) {
    decodedDataBytes += frame.encodedLength();
    scheduleFlush(decodedDataBytes - ackedDataBytes >= CREDIT_UPDATE_BYTES);
    MuxStreamLink link = streams.get(frame.streamId());
    if (link == null) {
      send(MuxFrame.reset(frame.streamId(), "unknown response stream"));
      return;
    }
    try {
      link.onData(frame);
    } catch (TcpCodecException e) {
      link.reader().onProtocolError(e.getMessage());
    }
  }

  /** Gives {@code credits} back to stream {@code id}: at once past the update size, else soon. */
  void grant(UUID id, long credits) {
    if (closed || !streams.containsKey(id)) {
      return;
    }
    long pending = pendingCredits.merge(id, credits, Long::sum);
    scheduleFlush(pending >= CREDIT_UPDATE_BYTES);
  }

  /** Forgets stream {@code link}; {@code false} when it was already gone. */
  boolean forget(MuxStreamLink link) {
    pendingCredits.remove(link.streamId());
    return !closed && streams.remove(link.streamId(), link);
  }

  void send(MuxFrame frame) {
    if (!closed) {
      writer.write(MuxFrameEncoder.encode(frame, maxMessageSize));
    }
  }

  private void scheduleFlush(boolean now) {
    if (now) {
      flush();
    } else if (flushTimer < 0) {
      flushTimer = vertx.setTimer(CREDIT_FLUSH_MS, id -> timerFlush());
    }
  }

  private void timerFlush() {
    flushTimer = -1;
    flush();
  }

  private void flush() {
    if (closed) {
      return;
    }
    if (decodedDataBytes > ackedDataBytes) {
      ackedDataBytes = decodedDataBytes;
      send(MuxFrame.connectionAck(ackedDataBytes));
    }
    pendingCredits.forEach(
        (id, credits) ->
            send(MuxFrame.windowUpdate(id, Math.min(credits, WorkerMuxConnection.STREAM_WINDOW))));
    pendingCredits.clear();
  }

  private void onClosed() {
    breakAll("closed the response mux connection", false);
  }

  /** Ends every stream on the connection as broken off by the worker. */
  private void breakAll(String reason, boolean malformed) {
    if (closed) {
      return;
    }
    closed = true;
    if (flushTimer >= 0) {
      vertx.cancelTimer(flushTimer);
    }
    List<MuxStreamLink> broken = List.copyOf(streams.values());
    streams.clear();
    pendingCredits.clear();
    for (MuxStreamLink link : broken) {
      if (malformed) {
        link.reader().onProtocolError(reason);
      } else {
        link.reader().onSocketEnd();
      }
    }
  }
}
