package io.kvrouter.protocol;

/**
 * A worker's response stream failed: the worker reported an error for the request, or the stream
 * broke off ({@link #disconnected()}: the connection closed before the end, or the worker stopped
 * sending, {@link #stalled()}), which means the worker itself is in trouble.
 */
public final class WorkerStreamException extends RouterException {
  private final boolean disconnected;
  private final boolean stalled;
  private final String engineMessage;

  private WorkerStreamException(
      String message, Throwable cause, boolean disconnected, boolean stalled) {
    this(message, cause, disconnected, stalled, null);
  }

  private WorkerStreamException(
      String message,
      Throwable cause,
      boolean disconnected,
      boolean stalled,
      String engineMessage) {
    super(message, cause);
    this.disconnected = disconnected;
    this.stalled = stalled;
    this.engineMessage = engineMessage;
  }

  /** The router found the worker's stream wrong for this request (a token it cannot decode). */
  public static WorkerStreamException reported(String message) {
    return new WorkerStreamException(message, null, false, false);
  }

  /**
   * The engine of worker {@code workerId} reported an error for this request, saying {@code
   * engineMessage}.
   */
  public static WorkerStreamException fromEngine(String workerId, String engineMessage) {
    return new WorkerStreamException(
        "worker " + workerId + " failed: " + engineMessage, null, false, false, engineMessage);
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

  /**
   * What the engine said of its error, without the worker's name; null when the router, not the
   * engine, found the fault.
   */
  public String engineMessage() {
    return engineMessage;
  }

  /** Whether the stream was given up because the worker stopped sending. */
  public boolean stalled() {
    return stalled;
  }
}
