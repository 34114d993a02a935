package io.kvrouter.protocol;

/** A worker failed while streaming a response: it reported an error or the stream broke off. */
public final class WorkerStreamException extends RouterException {
  public WorkerStreamException(String message, Throwable cause) {
    super(message, cause);
  }
}
