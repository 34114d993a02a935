package io.kvrouter.transport.tcp;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pooled {@code tcp_response_mux_v1} connection of a worker to a frontend: Dynamo's worker-side
 * {@code MuxConnection} ({@code tcp/mux/client.rs} at 06d22825). It opens with the TwoPart
 * handshake and waits for the connection ack ({@link MuxHandshake}), then carries the frames of
 * many {@link MuxResponseSink}s.
 *
 * <p>The writer takes one frame per stream in turn (round robin). A {@code Data} frame (header
 * included) costs its stream's credits and the connection's; a stream out of credits waits for its
 * {@code WindowUpdate} while the others go on, and the whole writer waits when the connection's
 * window is spent until a {@code ConnectionAck} moves the frontend's cumulative offset (an offset
 * that goes back, or past what was sent, breaks the connection, as in Dynamo). Prologues and resets
 * go out at once. Frames for a stream the worker does not know are answered with {@code Reset},
 * except a {@code Reset}. When the connection breaks, every stream on it is cancelled. Runs on the
 * pool's context.
 */
final class WorkerMuxConnection {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerMuxConnection.class);

  /** Dynamo's default {@code DYN_TCP_RESPONSE_STREAM_WINDOW_BYTES}. */
  static final long STREAM_WINDOW = 262_144;

  /** Dynamo's default {@code DYN_TCP_RESPONSE_CONNECTION_WINDOW_BYTES}. */
  static final long CONNECTION_WINDOW = 262_144;

  private static final int ACK_FRAME_BYTES = TwoPartMessage.PREFIX_BYTES + 20 + 8;

  private final Vertx vertx;
  private final Context context;
  private final NetSocket socket;
  private final int maxMessageSize;
  private final Consumer<WorkerMuxConnection> onBroken;
  private final CoalescingWriter writer;
  private final MuxFrameDecoder decoder;
  private final Map<UUID, MuxResponseSink> streams = new HashMap<>();
  private final ArrayDeque<MuxResponseSink> ready = new ArrayDeque<>();
  private Buffer handshakeBytes = Buffer.buffer();
  private boolean acknowledged;
  private long connectionCredits = CONNECTION_WINDOW;
  private long sentDataBytes;
  private long ackedDataBytes;
  private boolean pumpQueued;
  private boolean broken;

  private WorkerMuxConnection(
      Vertx vertx, NetSocket socket, int maxMessageSize, Consumer<WorkerMuxConnection> onBroken) {
    this.vertx = vertx;
    this.context = Vertx.currentContext();
    this.socket = socket;
    this.maxMessageSize = maxMessageSize;
    this.onBroken = onBroken;
    this.writer = new CoalescingWriter(socket, context);
    this.decoder = new MuxFrameDecoder(maxMessageSize);
  }

  /**
   * Dials {@code address}, sends the handshake for {@code frontendServerId} and completes once the
   * frontend's ack has come within {@code timeout}. {@code onBroken} hears when the connection
   * breaks afterwards. Must be called on the pool's context.
   */
  static Future<WorkerMuxConnection> open(
      Vertx vertx,
      PlaneClient client,
      HostAndPort address,
      UUID frontendServerId,
      int maxMessageSize,
      Duration timeout,
      Consumer<WorkerMuxConnection> onBroken) {
    Promise<WorkerMuxConnection> opened = Promise.promise();
    client
        .connect(address.port(), address.host())
        .onComplete(
            ar -> {
              if (ar.failed()) {
                opened.fail(ar.cause());
                return;
              }
              WorkerMuxConnection connection =
                  new WorkerMuxConnection(vertx, ar.result(), maxMessageSize, onBroken);
              connection.handshake(frontendServerId, timeout, opened);
            });
    return opened.future();
  }

  private void handshake(
      UUID frontendServerId, Duration timeout, Promise<WorkerMuxConnection> opened) {
    long timer =
        vertx.setTimer(
            Math.max(1, timeout.toMillis()),
            id -> {
              if (opened.tryFail(
                  "response mux handshake ack timeout from " + socket.remoteAddress())) {
                socket.close();
              }
            });
    opened.future().onComplete(done -> vertx.cancelTimer(timer));
    socket.handler(
        chunk -> {
          try {
            onBytes(chunk, opened);
          } catch (TcpCodecException e) {
            LOG.warn("response mux connection to {}: {}", socket.remoteAddress(), e.getMessage());
            if (!opened.tryFail(e)) {
              fail(e.getMessage());
            }
            socket.close();
          }
        });
    socket.closeHandler(
        v -> {
          opened.tryFail("frontend closed before response mux handshake ack");
          fail("frontend closed response mux connection");
        });
    socket.drainHandler(v -> pump());
    socket.exceptionHandler(e -> LOG.debug("response mux connection: {}", e.toString()));
    socket.write(MuxHandshake.of(frontendServerId, UUID.randomUUID()).encode(maxMessageSize));
  }

  private void onBytes(Buffer chunk, Promise<WorkerMuxConnection> opened) {
    if (acknowledged) {
      decoder.decode(chunk, this::onFrame);
      return;
    }
    handshakeBytes.appendBuffer(chunk);
    if (handshakeBytes.length() < ACK_FRAME_BYTES) {
      return;
    }
    MuxHandshake.requireAck(
        TwoPartDecoder.decodeWhole(handshakeBytes.getBuffer(0, ACK_FRAME_BYTES), maxMessageSize));
    Buffer rest = handshakeBytes.getBuffer(ACK_FRAME_BYTES, handshakeBytes.length());
    handshakeBytes = null;
    acknowledged = true;
    opened.tryComplete(this);
    if (rest.length() > 0) {
      decoder.decode(rest, this::onFrame);
    }
  }

  Context context() {
    return context;
  }

  int activeStreams() {
    return streams.size();
  }

  /** Adds a stream; {@code false} if its id is taken or the connection broke. */
  boolean register(MuxResponseSink sink) {
    if (broken) {
      return false;
    }
    return streams.putIfAbsent(sink.streamId(), sink) == null;
  }

  void unregister(MuxResponseSink sink) {
    streams.remove(sink.streamId(), sink);
  }

  /** Writes a frame that jumps the queues: a prologue or a reset. */
  void sendNow(MuxFrame frame) {
    if (!broken) {
      writer.write(MuxFrameEncoder.encode(frame, maxMessageSize));
    }
  }

  /** {@code sink} has a frame queued. */
  void schedule(MuxResponseSink sink) {
    if (!sink.scheduled()) {
      sink.scheduled(true);
      ready.add(sink);
    }
    pump();
  }

  private void pump() {
    while (!broken && !ready.isEmpty()) {
      if (socket.writeQueueFull()) {
        return; // the drain handler pumps again
      }
      if (writer.writeQueueFull()) {
        pumpAfterFlush();
        return;
      }
      MuxResponseSink sink = ready.poll();
      MuxFrame head = sink.head();
      if (head == null || !sink.hasCreditsFor(head)) {
        sink.scheduled(false); // empty, or waiting for its WindowUpdate
        continue;
      }
      if (head.kind() == MuxFrameKind.DATA) {
        long cost = Math.min(head.encodedLength(), CONNECTION_WINDOW);
        if (connectionCredits < cost) {
          ready.addFirst(sink); // the whole writer waits for a ConnectionAck
          return;
        }
        connectionCredits -= cost;
        sentDataBytes += head.encodedLength();
      }
      writer.write(MuxFrameEncoder.encode(head, maxMessageSize));
      sink.written(head);
      if (head.kind() == MuxFrameKind.END) {
        unregister(sink);
      }
      if (sink.head() != null) {
        ready.add(sink);
      } else {
        sink.scheduled(false);
      }
    }
  }

  private void pumpAfterFlush() {
    if (!pumpQueued) {
      pumpQueued = true;
      context.runOnContext(
          v -> {
            pumpQueued = false;
            pump();
          });
    }
  }

  private void onFrame(MuxFrame frame) {
    if (frame.kind() == MuxFrameKind.CONNECTION_ACK) {
      onConnectionAck(frame.ackOffset());
      return;
    }
    MuxResponseSink sink = streams.get(frame.streamId());
    if (sink == null) {
      if (frame.kind() != MuxFrameKind.RESET) {
        sendNow(MuxFrame.empty(MuxFrameKind.RESET, frame.streamId()));
      }
      return;
    }
    switch (frame.kind()) {
      case WINDOW_UPDATE -> {
        long credits = frame.credits();
        if (credits == 0 || credits > STREAM_WINDOW) {
          reset(sink);
        } else {
          sink.addCredits(credits);
          schedule(sink);
        }
      }
      case STOP -> sink.onStop();
      case KILL, RESET -> {
        unregister(sink);
        sink.onKilled();
      }
      default -> reset(sink); // a frontend does not send Prologue, Data or End
    }
  }

  private void reset(MuxResponseSink sink) {
    sendNow(MuxFrame.empty(MuxFrameKind.RESET, sink.streamId()));
    unregister(sink);
    sink.onKilled();
  }

  private void onConnectionAck(long offset) {
    if (offset < ackedDataBytes) {
      throw new TcpCodecException(
          "response mux connection ACK moved backwards from " + ackedDataBytes + " to " + offset);
    }
    if (offset > sentDataBytes) {
      throw new TcpCodecException(
          "response mux connection ACK " + offset + " exceeds sent offset " + sentDataBytes);
    }
    long delta = offset - ackedDataBytes;
    ackedDataBytes = offset;
    connectionCredits = Math.min(CONNECTION_WINDOW, connectionCredits + delta);
    pump();
  }

  /** Breaks the connection: every stream on it is cancelled. */
  void fail(String reason) {
    if (broken) {
      return;
    }
    broken = true;
    LOG.debug("response mux connection to {} failed: {}", socket.remoteAddress(), reason);
    socket.close();
    List<MuxResponseSink> lost = List.copyOf(streams.values());
    streams.clear();
    ready.clear();
    lost.forEach(MuxResponseSink::onKilled);
    onBroken.accept(this);
  }

  void close() {
    fail("closed by the worker");
  }
}
