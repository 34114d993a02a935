package io.kvrouter.protocol;

/**
 * A worker did not take the request. Nothing reached the client, so the request may go to another
 * worker. {@link #workerFault()} tells the kinds apart: the worker is in trouble (it cannot be
 * reached, its connection broke, it stopped answering) and should leave the rotation until it
 * recovers; or it only refused this one request (it is overloaded, or its engine rejected the
 * request), or the router itself could not send it (out of file descriptors), and it stays in
 * rotation. A refusal because the request can never fit in the worker's KV cache ({@link
 * #neverFits()}) is the request's fault, not a passing state.
 */
public final class WorkerUnavailableException extends RouterException {
  private enum Kind {
    UNREACHABLE,
    REFUSED,
    NEVER_FITS,
    LOCAL
  }

  private final String workerId;
  private final Kind kind;
  private final String reason;

  private WorkerUnavailableException(String workerId, String message, Throwable cause, Kind kind) {
    super("worker " + workerId + ": " + message, cause);
    this.workerId = workerId;
    this.kind = kind;
    this.reason = message;
  }

  /** The worker cannot be reached or stopped answering. */
  public static WorkerUnavailableException unreachable(
      String workerId, String message, Throwable cause) {
    return new WorkerUnavailableException(workerId, message, cause, Kind.UNREACHABLE);
  }

  /** The worker is up but refused this request. */
  public static WorkerUnavailableException refused(String workerId, String message) {
    return new WorkerUnavailableException(workerId, message, null, Kind.REFUSED);
  }

  /**
   * The worker is up but refused this request because it can never fit in its KV cache ({@link
   * KvCapacityRefusal}); {@code detail} says by how much.
   */
  public static WorkerUnavailableException neverFits(String workerId, String detail) {
    return new WorkerUnavailableException(workerId, detail, null, Kind.NEVER_FITS);
  }

  /**
   * The router could not send the request for want of its own resources (it is out of file
   * descriptors): nothing is known against the worker.
   */
  public static WorkerUnavailableException localFailure(
      String workerId, String message, Throwable cause) {
    return new WorkerUnavailableException(workerId, message, cause, Kind.LOCAL);
  }

  public String workerId() {
    return workerId;
  }

  /** Whether the worker itself failed, as opposed to refusing this one request. */
  public boolean workerFault() {
    return kind == Kind.UNREACHABLE;
  }

  /**
   * Whether the worker, up and answering, refused this one request (an endpoint it does not serve,
   * an error before streaming).
   */
  public boolean refused() {
    return kind == Kind.REFUSED;
  }

  /** Whether the worker refused the request because it can never fit in the worker's KV cache. */
  public boolean neverFits() {
    return kind == Kind.NEVER_FITS;
  }

  /** Why the worker did not take the request, without the worker's id. */
  public String reason() {
    return reason;
  }
}
