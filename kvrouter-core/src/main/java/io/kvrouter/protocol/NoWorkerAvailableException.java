package io.kvrouter.protocol;

/** No healthy worker can take the request right now. */
public final class NoWorkerAvailableException extends RouterException {
  public NoWorkerAvailableException(String message) {
    super(message, null);
  }
}
