package io.kvrouter.transport.tcp;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;

/**
 * Gathers the frames written during one event-loop task into one socket write. An engine with no
 * delay between tokens emits a whole response in one task; written frame by frame, that is one
 * system call and one TCP segment per token on both ends. Must be used on the socket's context.
 */
final class CoalescingWriter {
  /** Bytes gathered before the writer reports itself full (Vert.x's default write queue size). */
  static final int PENDING_LIMIT = 64 * 1024;

  private final NetSocket socket;
  private final Context context;
  private Buffer pending;

  CoalescingWriter(NetSocket socket, Context context) {
    this.socket = socket;
    this.context = context;
  }

  void write(Buffer frame) {
    if (pending == null) {
      pending = Buffer.buffer(frame.length() * 4);
      context.runOnContext(v -> flush());
    }
    pending.appendBuffer(frame);
  }

  /** Writes what is pending now; also runs by itself after the task that wrote it. */
  void flush() {
    if (pending != null) {
      Buffer frames = pending;
      pending = null;
      socket.write(frames);
    }
  }

  /** Whether the socket's queue is full, or as much is pending here as a full queue holds. */
  boolean writeQueueFull() {
    return socket.writeQueueFull() || (pending != null && pending.length() >= PENDING_LIMIT);
  }
}
