package io.kvrouter.events.zmq;

import java.util.Optional;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * One replay request on its own DEALER socket (see {@link ZmqFrames}). Each request gets a fresh
 * socket, closed when the request ends or is dropped: ZeroMQ queues a request until the publisher
 * accepts it, so on a shared socket an abandoned request could still be answered later, and that
 * answer be read as the answer to a newer request.
 *
 * <p>Its frames are limited to the subscriber's {@code --kv-events-max-message-bytes}: a larger
 * reply drops the connection, and with it the rest of the answer, which is then given up for want
 * of replies.
 */
final class ReplayRequest implements AutoCloseable {
  /**
   * Replies queued on the socket at most: more than a vLLM replay buffer holds (10,000 batches), so
   * a full answer fits, yet memory stays bounded. Beyond it the publisher's ROUTER drops replies,
   * which shows as a hole and is asked for again.
   */
  static final int RECEIVE_HWM = 20_000;

  /**
   * How long the connection's ZMTP handshake may take, and how soon ZeroMQ connects again after
   * giving up on one: together well within the subscriber's replay inactivity (3 s), so a stalled
   * handshake costs a reconnect, not the request. jeromq 0.6.0 leaves a few fresh connections in a
   * thousand (more under load) connected but never handshaking: its poller can lose the new
   * connection's registration when the connecter's is cancelled in the same pass (jeromq PR #1022).
   * Only the handshake timer gets such a connection going again, and the request, still queued,
   * then goes out on the next one. With a 5 s limit the subscriber gave up first, and that replay
   * attempt was lost ("no replay answer"); measured on loopback: 4 to 10 of 2,000 requests
   * unanswered in 3 s with 5 s and 1 s, none of 3,000 with 1 s and 100 ms (nor with 1 s and 1 s).
   */
  static final int HANDSHAKE_MILLIS = 1_000;

  static final int RECONNECT_MILLIS = 100;

  /** Where the replies read go. */
  interface Replies {
    void batch(long seq, byte[] payload);

    void malformed();
  }

  private final ZContext context;
  private final ZMQ.Socket socket;
  private final DropWatch drops;
  private final long sentNanos;
  private long lastActivityNanos;
  private boolean anyReply;
  private boolean closed;

  private ReplayRequest(ZContext context, ZMQ.Socket socket, DropWatch drops, long nowNanos) {
    this.context = context;
    this.socket = socket;
    this.drops = drops;
    this.sentNanos = nowNanos;
    this.lastActivityNanos = nowNanos;
  }

  /**
   * Connects a new DEALER to {@code endpoint}, taking frames up to {@code maxMessageBytes}, and
   * sends the request for batches from {@code from}.
   */
  static ReplayRequest send(
      ZContext context, String endpoint, long from, long maxMessageBytes, long nowNanos) {
    ZMQ.Socket socket = context.createSocket(SocketType.DEALER);
    socket.setLinger(0);
    socket.setRcvHWM(RECEIVE_HWM);
    socket.setHandshakeIvl(HANDSHAKE_MILLIS);
    socket.setReconnectIVL(RECONNECT_MILLIS);
    DropWatch drops = DropWatch.limit(socket, maxMessageBytes);
    socket.connect(endpoint);
    socket.sendMore(new byte[0]);
    socket.send(ZmqFrames.seq(from));
    return new ReplayRequest(context, socket, drops, nowNanos);
  }

  ZMQ.Socket socket() {
    return socket;
  }

  /**
   * Reads the replies waiting on the socket without blocking, handing each batch to {@code
   * replies}; returns {@code true} once the end marker has been read (nothing after it is read).
   * Stops, returning {@code false}, when {@code replies} closed this request.
   */
  boolean read(Replies replies, long nowNanos) {
    ZMsg reply;
    while (!closed && (reply = ZMsg.recvMsg(socket, ZMQ.DONTWAIT)) != null) {
      lastActivityNanos = nowNanos;
      anyReply = true;
      // ["", (topic), seq, payload]: 2 or 3 frames after the empty delimiter
      Optional<ZmqFrames.Numbered> batch = ZmqFrames.numbered(reply, 3, 4);
      if (batch.isEmpty()) {
        replies.malformed();
        continue;
      }
      if (batch.get().seq() == ZmqFrames.END_OF_REPLAY || batch.get().payload().length == 0) {
        return true;
      }
      replies.batch(batch.get().seq(), batch.get().payload());
    }
    return false;
  }

  /** Whether anything came back yet. */
  boolean anyReply() {
    return anyReply;
  }

  /** Nanoseconds since the request was sent or the last reply arrived. */
  long quietNanos(long nowNanos) {
    return nowNanos - lastActivityNanos;
  }

  /** Nanoseconds since the request was sent. */
  long ageNanos(long nowNanos) {
    return nowNanos - sentNanos;
  }

  /** Replies dropped (with the connection) for a frame above the limit since the last call. */
  long takeOversized() {
    return drops.takeOversized();
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      context.destroySocket(socket);
    }
  }
}
