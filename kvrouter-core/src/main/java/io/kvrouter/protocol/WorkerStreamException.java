package io.kvrouter.protocol;

/**
 * A worker's response stream failed: the worker reported an error for the request, or the stream
 * broke off ({@link #disconnected()}: the connection closed before the end), which means the worker
 * itself is in trouble.
 */
public final class WorkerStreamException extends RouterException {
  private final boolean disconnected;

  private WorkerStreamException(String message, Throwable cause, boolean disconnected) {
    super(message, cause);
    this.disconnected = disconnected;
  }

  /** The worker reported an error for this request. */
  public static WorkerStreamException reported(String message) {
    return new WorkerStreamException(message, null, false);
  }

  /** The stream broke off before its end. */
  public static WorkerStreamException disconnected(String message, Throwable cause) {
    return new WorkerStreamException(message, cause, true);
  }

  /** Whether the stream broke off (worker failure) rather than ending with a reported error. */
  public boolean disconnected() {
    return disconnected;
  }
}
