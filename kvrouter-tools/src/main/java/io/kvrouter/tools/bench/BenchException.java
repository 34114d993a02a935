package io.kvrouter.tools.bench;

/** The benchmark could not run: the router cannot be reached, lists no model, and the like. */
public final class BenchException extends RuntimeException {
  public BenchException(String message, Throwable cause) {
    super(message, cause);
  }
}
