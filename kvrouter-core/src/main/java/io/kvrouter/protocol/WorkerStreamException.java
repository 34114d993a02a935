package io.kvrouter.protocol;

/**
 * A worker's response stream failed: the worker reported an error for the request, or the stream
 * broke off ({@link #disconnected()}: the connection closed before the end, or the worker stopped
 * sending, {@link #stalled()}), which means the worker itself is in trouble.
 */
public final class WorkerStreamException extends RouterException {
  private final boolean disconnected;
  private final boolean stalled;

  private WorkerStreamException(
      String message, Throwable cause, boolean disconnected, boolean stalled) {
    super(message, cause);
    this.disconnected = disconnected;
    this.stalled = stalled;
  }

  /** The worker reported an error for this request. */
  public static WorkerStreamException reported(String message) {
    return new WorkerStreamException(message, null, false, false);
  }

  /** The stream broke off before its end. */
  public static WorkerStreamException disconnected(String message, Throwable cause) {
    return new WorkerStreamException(message, cause, true, false);
  }

  /**
   * The worker stopped sending: the stream stayed silent for the idle timeout and was given up (it
   * counts as {@link #disconnected()} too).
   */
  public static WorkerStreamException stalled(String message) {
    return new WorkerStreamException(message, null, true, true);
  }

  /** Whether the stream broke off (worker failure) rather than ending with a reported error. */
  public boolean disconnected() {
    return disconnected;
  }

  /** Whether the stream was given up because the worker stopped sending. */
  public boolean stalled() {
    return stalled;
  }
}
