package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayDeque;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's end of one {@code tcp_response_mux_v1} stream: Dynamo's {@code
 * MuxResponseStreamSender} ({@code tcp/mux/client.rs} at 06d22825). The prologue goes out at once;
 * {@code Data} and {@code End} wait in the stream's queue for the connection's writer, which sends
 * a {@code Data} frame only when the stream has the credits for it ({@link
 * WorkerMuxConnection#STREAM_WINDOW} to start with, then what the frontend gives back). A full
 * queue pauses the engine ({@link #writeQueueFull()}) until the frontend's credits let it drain.
 *
 * <p>From the frontend: {@code Stop} cancels the engine and ends the stream ({@code
 * complete_final}, {@code End}); {@code Kill} or {@code Reset} cancels it and forgets it; so does
 * the connection breaking. Runs on the pool's context.
 */
final class MuxResponseSink implements ResponseSink {
  private static final Logger LOG = LoggerFactory.getLogger(MuxResponseSink.class);

  /** Bytes queued before the publisher is told the stream is full (pausing its engine). */
  static final int QUEUE_LIMIT = 64 * 1024;

  private final MuxClientPool pool;
  private final ResponseMuxInfo info;
  private final PayloadCodec codec;
  private final ArrayDeque<MuxFrame> queue = new ArrayDeque<>();
  private WorkerMuxConnection connection;
  private Listener listener;
  private long queuedBytes;
  private long credits = WorkerMuxConnection.STREAM_WINDOW;
  private boolean scheduled;
  private boolean full;
  private boolean finished;

  /**
   * @param codec the request's payload codec, which the stream's items are in
   */
  MuxResponseSink(MuxClientPool pool, ResponseMuxInfo info, PayloadCodec codec) {
    this.pool = pool;
    this.info = info;
    this.codec = codec;
  }

  UUID streamId() {
    return info.streamId();
  }

  @Override
  public void connect(Listener listener) {
    this.listener = listener;
    pool.connection(info)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                LOG.warn(
                    "request {}: no response mux connection to {}: {}",
                    info.context(),
                    info.address(),
                    ar.cause().getMessage());
                return;
              }
              connection = ar.result();
              if (!connection.register(this)) {
                LOG.warn(
                    "request {}: duplicate response mux stream id {}", info.context(), streamId());
                return;
              }
              listener.connected();
            });
  }

  @Override
  public Context context() {
    return pool.context();
  }

  @Override
  public void prologue(StreamPrologue prologue) {
    if (finished) {
      return;
    }
    connection.sendNow(new MuxFrame(MuxFrameKind.PROLOGUE, streamId(), WireJson.write(prologue)));
    if (!prologue.ok()) {
      finished = true;
      connection.unregister(this);
    }
  }

  @Override
  public void data(Buffer envelope) {
    enqueue(new MuxFrame(MuxFrameKind.DATA, streamId(), envelope));
  }

  @Override
  public void end() {
    enqueue(MuxFrame.empty(MuxFrameKind.END, streamId()));
    finished = true;
  }

  private void enqueue(MuxFrame frame) {
    if (finished) {
      return;
    }
    queue.add(frame);
    queuedBytes += frame.encodedLength();
    connection.schedule(this);
  }

  @Override
  public boolean writeQueueFull() {
    if (queuedBytes >= QUEUE_LIMIT) {
      full = true;
    }
    return full;
  }

  @Override
  public boolean finished() {
    return finished;
  }

  // --- the connection's side ---

  /** The next frame to write, or {@code null}. */
  MuxFrame head() {
    return queue.peek();
  }

  /** Whether this stream may send {@code frame} now (a Data frame needs its credits). */
  boolean hasCreditsFor(MuxFrame frame) {
    return frame.kind() != MuxFrameKind.DATA
        || credits >= Math.min(frame.encodedLength(), WorkerMuxConnection.STREAM_WINDOW);
  }

  /** The head was written. */
  void written(MuxFrame frame) {
    queue.poll();
    queuedBytes -= frame.encodedLength();
    if (frame.kind() == MuxFrameKind.DATA) {
      credits -= Math.min(frame.encodedLength(), WorkerMuxConnection.STREAM_WINDOW);
    }
    if (full && queuedBytes < QUEUE_LIMIT && !finished) {
      full = false;
      listener.drained();
    }
  }

  boolean scheduled() {
    return scheduled;
  }

  void scheduled(boolean value) {
    scheduled = value;
  }

  /** A {@code WindowUpdate}: never above the window, as Dynamo's sender caps it. */
  void addCredits(long granted) {
    credits = Math.min(WorkerMuxConnection.STREAM_WINDOW, credits + granted);
  }

  /**
   * The frontend's {@code Stop}: the stream ends cleanly ({@code complete_final}, {@code End}) and
   * the engine is stopped; what the publisher writes after that (the engine's cancellation) is
   * dropped.
   */
  void onStop() {
    if (finished) {
      return;
    }
    data(ResponseEnvelope.last(codec));
    end();
    listener.cancelled();
  }

  /** {@code Kill}, {@code Reset} or a lost connection: stop, write nothing more. */
  void onKilled() {
    queue.clear();
    queuedBytes = 0;
    boolean running = !finished;
    finished = true;
    if (running) {
      listener.cancelled();
    }
  }
}
