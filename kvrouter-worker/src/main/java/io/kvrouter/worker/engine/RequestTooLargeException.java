package io.kvrouter.worker.engine;

/** A request whose prompt and output need more KV blocks than its engine ever admits. */
public final class RequestTooLargeException extends IllegalArgumentException {
  public RequestTooLargeException(String message) {
    super(message);
  }
}
