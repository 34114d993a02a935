package io.kvrouter.protocol;

/** The request was cancelled, normally because the client went away. */
public final class RequestCancelledException extends RouterException {
  public RequestCancelledException(String message) {
    super(message, null);
  }
}
