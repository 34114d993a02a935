package io.kvrouter.protocol;

/**
 * A worker did not take the request. Nothing reached the client, so the request may go to another
 * worker. {@link #workerFault()} tells the kinds apart: the worker is in trouble (it cannot be
 * reached, its connection broke, it stopped answering) and should leave the rotation until it
 * recovers; or it only refused this one request (it is overloaded, or its engine rejected the
 * request), or the router itself could not send it (out of file descriptors), and it stays in
 * rotation.
 */
public final class WorkerUnavailableException extends RouterException {
  private final String workerId;
  private final boolean workerFault;

  private WorkerUnavailableException(
      String workerId, String message, Throwable cause, boolean workerFault) {
    super("worker " + workerId + ": " + message, cause);
    this.workerId = workerId;
    this.workerFault = workerFault;
  }

  /** The worker cannot be reached or stopped answering. */
  public static WorkerUnavailableException unreachable(
      String workerId, String message, Throwable cause) {
    return new WorkerUnavailableException(workerId, message, cause, true);
  }

  /** The worker is up but refused this request. */
  public static WorkerUnavailableException refused(String workerId, String message) {
    return new WorkerUnavailableException(workerId, message, null, false);
  }

  /**
   * The router could not send the request for want of its own resources (it is out of file
   * descriptors): nothing is known against the worker.
   */
  public static WorkerUnavailableException localFailure(
      String workerId, String message, Throwable cause) {
    return new WorkerUnavailableException(workerId, message, cause, false);
  }

  public String workerId() {
    return workerId;
  }

  /** Whether the worker itself failed, as opposed to refusing this one request. */
  public boolean workerFault() {
    return workerFault;
  }
}
