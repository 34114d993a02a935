package io.kvrouter.protocol;

/**
 * The router is shutting down and ended the request: it was still running when the shutdown's grace
 * period ran out. Not the worker's fault, so it is never counted against one.
 */
public final class RouterShuttingDownException extends RouterException {
  public RouterShuttingDownException(String message) {
    super(message, null);
  }
}
