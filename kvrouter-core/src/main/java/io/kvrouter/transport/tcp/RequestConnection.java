package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pooled request-plane connection to a worker. Requests are pipelined: each is written as soon
 * as it is submitted (or once the connection opens), and the acks that come back are matched to
 * them in order. A request waits {@code requestTimeout} for its ack; if none comes, the worker has
 * stopped reading and the connection is given up (closed). When the connection closes, every
 * request on it that has no response stream yet fails: a worker that dropped the connection is not
 * going to call home. Confined to the event loop of the request plane's context.
 */
final class RequestConnection {
  private static final Logger LOG = LoggerFactory.getLogger(RequestConnection.class);

  private record Submission(PendingCall<?> call, Function<String, Buffer> frameForLocalHost) {}

  private record AwaitingAck(PendingCall<?> call, long timer) {}

  private final Vertx vertx;
  private final HostAndPort address;
  private final TcpConfig config;
  private final Consumer<RequestConnection> onClosed;
  private final AckDecoder decoder;
  private final ArrayDeque<Submission> beforeOpen = new ArrayDeque<>();
  private final ArrayDeque<AwaitingAck> awaitingAck = new ArrayDeque<>();

  /** Acked calls whose worker has not opened the response stream yet; settled from any thread. */
  private final Set<PendingCall<?>> awaitingCallHome = ConcurrentHashMap.newKeySet();

  private final Promise<Void> open = Promise.promise();
  private NetSocket socket;
  private boolean closed;

  /** Why the connection closed, for requests submitted after: their failure names the cause. */
  private String closedReason;

  private Throwable closedCause;

  private RequestConnection(
      Vertx vertx, HostAndPort address, TcpConfig config, Consumer<RequestConnection> onClosed) {
    this.vertx = vertx;
    this.address = address;
    this.config = config;
    this.onClosed = onClosed;
    this.decoder = new AckDecoder(config.maxMessageSize());
  }

  /** Starts connecting; requests submitted meanwhile are written once the connection opens. */
  static RequestConnection open(
      Vertx vertx,
      PlaneClient client,
      HostAndPort address,
      TcpConfig config,
      Consumer<RequestConnection> onClosed) {
    RequestConnection connection = new RequestConnection(vertx, address, config, onClosed);
    client
        .connect(address.port(), address.host())
        .onComplete(
            ar -> {
              if (ar.succeeded()) {
                connection.opened(ar.result());
              } else {
                connection.failedToOpen(ar.cause());
              }
            });
    return connection;
  }

  /** Requests sent or queued on this connection and not acked yet. */
  int load() {
    return beforeOpen.size() + awaitingAck.size();
  }

  boolean isOpen() {
    return socket != null && !closed;
  }

  /** Succeeds when the connection opens, fails if it cannot. */
  Future<Void> whenOpen() {
    return open.future();
  }

  /**
   * Sends a request. The frame is built once the connection is open, from its local address (the
   * default call-home host); a builder that throws {@link TcpCodecException} (the request does not
   * fit in a frame) fails the call with {@link InvalidRequestException}.
   */
  void submit(PendingCall<?> call, Function<String, Buffer> frameForLocalHost) {
    if (closed) {
      call.fail(closedReason, closedCause);
    } else if (socket == null) {
      beforeOpen.add(new Submission(call, frameForLocalHost));
    } else {
      write(new Submission(call, frameForLocalHost));
    }
  }

  void close() {
    if (socket != null) {
      socket.close();
    } else {
      closed("request plane closed", null);
    }
  }

  private void opened(NetSocket opened) {
    if (closed) {
      opened.close();
      return;
    }
    socket = opened;
    socket.handler(this::onData);
    socket.closeHandler(v -> closed("connection to " + address + " closed", null));
    socket.exceptionHandler(
        e -> LOG.debug("request-plane connection to {}: {}", address, e.toString()));
    while (!beforeOpen.isEmpty()) {
      write(beforeOpen.poll());
    }
    open.complete();
  }

  private void failedToOpen(Throwable cause) {
    closed("cannot connect to " + address + ": " + cause.getMessage(), cause);
  }

  private void write(Submission submission) {
    PendingCall<?> call = submission.call();
    Buffer frame;
    try {
      frame = submission.frameForLocalHost().apply(socket.localAddress().hostAddress());
    } catch (TcpCodecException e) {
      // too large for the wire: no worker could take it, so it is the client's request at fault
      call.fail(new InvalidRequestException(e.getMessage(), null));
      return;
    }
    long timeoutMs = config.requestTimeout().toMillis();
    // An ack that does not come means the worker stopped reading: give up on the connection, so
    // the requests queued on it fail now instead of holding their place forever.
    long timer =
        vertx.setTimer(
            timeoutMs,
            id -> {
              closed("no acknowledgement from " + address + " within " + timeoutMs + " ms", null);
              socket.close();
            });
    awaitingAck.add(new AwaitingAck(call, timer));
    socket.write(frame);
  }

  private void onData(Buffer chunk) {
    try {
      decoder.decode(chunk, this::onAck);
    } catch (TcpCodecException e) {
      LOG.warn("closing request-plane connection to {}: {}", address, e.getMessage());
      socket.close();
    }
  }

  private void onAck(Ack ack) {
    AwaitingAck waiting = awaitingAck.poll();
    if (waiting == null) {
      throw new TcpCodecException("acknowledgement without a request");
    }
    vertx.cancelTimer(waiting.timer());
    PendingCall<?> call = waiting.call();
    if (ack.accepted()) {
      awaitingCallHome.add(call);
      CallHomeDeadlines.arm(vertx, config, call);
      call.future().onComplete(done -> awaitingCallHome.remove(call));
    } else {
      call.refuse("worker rejected the request: " + ack.rejection());
    }
  }

  boolean isClosed() {
    return closed;
  }

  private void closed(String reason, Throwable cause) {
    if (closed) {
      return;
    }
    closed = true;
    closedReason = reason;
    closedCause = cause;
    List<PendingCall<?>> failing = new ArrayList<>(awaitingCallHome);
    beforeOpen.forEach(s -> failing.add(s.call()));
    awaitingAck.forEach(
        a -> {
          vertx.cancelTimer(a.timer());
          failing.add(a.call());
        });
    beforeOpen.clear();
    awaitingAck.clear();
    awaitingCallHome.clear();
    failing.forEach(call -> call.fail(reason, cause));
    open.tryFail(cause != null ? cause : new IllegalStateException(reason));
    onClosed.accept(this);
  }
}
