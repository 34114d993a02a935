package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Consumer;

/**
 * A request sent (or about to be) whose response stream has not opened yet: from registration of
 * its call-home subject to the worker's prologue. The request connection (ack, timeout, close) and
 * the call-home listener (handshake, prologue) race to settle it from different event loops, so its
 * few state changes are synchronized; the first to settle wins and the others are no-ops.
 *
 * @param <R> what reads the response stream once it opens
 */
final class PendingCall<R extends CallHomeReader> {

  /** Makes the reader of a call's response stream when the worker's prologue is good. */
  @FunctionalInterface
  interface ReaderFactory<R extends CallHomeReader> {
    R open(Context context, ResponseLink link, PendingCall<R> call);
  }

  private final String subject;
  private final WorkerEndpoint worker;
  private final String requestId;
  private final ReaderFactory<R> readers;
  private final Consumer<PendingCall<?>> unregister;
  private final Promise<R> promise = Promise.promise();
  private final Promise<Void> calledHome = Promise.promise();
  private ResponseLink callHome;
  private boolean settled;

  PendingCall(
      String subject,
      WorkerEndpoint worker,
      String requestId,
      ReaderFactory<R> readers,
      Consumer<PendingCall<?>> unregister) {
    this.subject = subject;
    this.worker = worker;
    this.requestId = requestId;
    this.readers = readers;
    this.unregister = unregister;
  }

  String subject() {
    return subject;
  }

  WorkerEndpoint worker() {
    return worker;
  }

  String requestId() {
    return requestId;
  }

  Future<R> future() {
    return promise.future();
  }

  /**
   * Completes when the worker has called back (its handshake named this call), before its prologue;
   * never if the call failed first.
   */
  Future<Void> calledHome() {
    return calledHome.future();
  }

  /** Binds the worker's call-home socket; {@code false} if the call already failed. */
  boolean attach(ResponseLink socket) {
    synchronized (this) {
      if (settled) {
        return false;
      }
      callHome = socket;
    }
    calledHome.tryComplete();
    return true;
  }

  /**
   * The response comes on a multiplexed connection, where a stream shows itself first with its
   * prologue: there is no call back to wait for, so {@link #calledHome()} completes now and the
   * wait for the prologue alone is timed.
   */
  void expectNoCallBack() {
    calledHome.tryComplete();
  }

  /**
   * The prologue was good: makes the reader of the stream on {@code link} and hands it over. If the
   * call failed meanwhile, the reader is cancelled at once (telling the worker to stop).
   */
  CallHomeReader open(Context context, ResponseLink link) {
    R reader = readers.open(context, link, this);
    boolean handed;
    synchronized (this) {
      handed = !settled;
      settled = true;
    }
    if (handed) {
      promise.complete(reader);
    } else {
      reader.cancel();
    }
    return reader;
  }

  /**
   * Fails the call because the worker is in trouble (unreachable, connection lost, no answer), or,
   * when the router is out of file descriptors ({@link LocalResources#exhausted}: {@code cause}
   * says so, or the process is at its limit), because the router could not serve it; closes its
   * call-home socket.
   */
  void fail(String message, Throwable cause) {
    fail(
        LocalResources.exhausted(cause)
            ? WorkerUnavailableException.localFailure(
                worker.workerId(), message + " (the router is out of file descriptors)", cause)
            : WorkerUnavailableException.unreachable(worker.workerId(), message, cause));
  }

  /** Fails the call because the worker, up and answering, refused this request. */
  void refuse(String message) {
    fail(WorkerUnavailableException.refused(worker.workerId(), message));
  }

  /** Fails the call because the worker refused a request that can never fit in its KV cache. */
  void refuseAsNeverFitting(String detail) {
    fail(WorkerUnavailableException.neverFits(worker.workerId(), detail));
  }

  void fail(Throwable failure) {
    ResponseLink socket;
    synchronized (this) {
      if (settled) {
        return;
      }
      settled = true;
      socket = callHome;
    }
    unregister.accept(this);
    if (socket != null) {
      socket.close();
    }
    promise.fail(failure);
  }
}
