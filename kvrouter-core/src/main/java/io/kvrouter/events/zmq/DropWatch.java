package io.kvrouter.events.zmq;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.zeromq.ZEvent;
import org.zeromq.ZMQ;
import zmq.util.Errno;

/**
 * Watches a socket for connections ZeroMQ drops, and counts those it drops because the peer sent a
 * frame above the socket's {@code ZMQ_MAXMSGSIZE}.
 *
 * <p>Why: ZeroMQ drops a peer that sends a frame above the limit (before reading the frame, so it
 * never takes the memory), or that breaks the wire protocol otherwise, as a protocol error; and for
 * a protocol error a connecting socket does not reconnect, unlike after a lost connection (seen
 * with jeromq 0.6.0, as in libzmq). A subscriber that did nothing would never hear from that
 * publisher again. So the owner of a connecting socket calls {@link #reconnectIfDropped} on its
 * thread.
 *
 * <p>The hook runs on ZeroMQ's I/O thread while it drops the connection; jeromq's errno is per
 * thread, so the error that caused the drop is read there, and cleared: a later drop for a timeout
 * sets none, and must not be taken for another oversized frame.
 */
final class DropWatch {
  /** jeromq's errno: one value per thread, whichever instance reads or writes it. */
  private static final Errno IO_THREAD_ERRNO = new Errno();

  private final ZMQ.Socket socket;
  private final AtomicBoolean dropped = new AtomicBoolean();
  private final AtomicLong oversized = new AtomicLong();

  private DropWatch(ZMQ.Socket socket) {
    this.socket = socket;
  }

  /** Limits {@code socket}'s inbound frames to {@code maxMessageBytes} and watches its drops. */
  static DropWatch limit(ZMQ.Socket socket, long maxMessageBytes) {
    socket.setMaxMsgSize(maxMessageBytes);
    DropWatch watch = new DropWatch(socket);
    socket.setEventHook(watch::disconnected, ZMQ.EVENT_DISCONNECTED);
    return watch;
  }

  private void disconnected(ZEvent event) {
    if (socket.errno() == ZMQ.Error.EMSGSIZE.getCode()) {
      oversized.incrementAndGet();
    }
    IO_THREAD_ERRNO.set(0);
    dropped.set(true);
  }

  /**
   * On the socket's own thread: connects {@code endpoint} again when a connection was dropped since
   * the last call, whether for a frame too large, another protocol error or a lost connection
   * (ZeroMQ would reconnect by itself after the last; doing it here then changes nothing).
   */
  void reconnectIfDropped(String endpoint) {
    if (dropped.getAndSet(false)) {
      socket.disconnect(endpoint); // false when ZeroMQ has forgotten the endpoint already
      socket.connect(endpoint);
    }
  }

  /** Connections dropped for a frame above the limit since the last call. */
  long takeOversized() {
    return oversized.getAndSet(0);
  }
}
