package io.kvrouter.protocol;

/**
 * A worker did not take the request: it could not be reached, it refused the request in its
 * acknowledgement, or it failed before producing any output. Nothing reached the client, so the
 * request may be sent to another worker.
 */
public final class WorkerUnavailableException extends RouterException {
  private final String workerId;

  public WorkerUnavailableException(String workerId, String message, Throwable cause) {
    super("worker " + workerId + ": " + message, cause);
    this.workerId = workerId;
  }

  public String workerId() {
    return workerId;
  }
}
