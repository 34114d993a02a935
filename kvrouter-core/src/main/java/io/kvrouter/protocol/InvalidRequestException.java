package io.kvrouter.protocol;

/** The client sent a request that cannot be served as written; {@code param} names the field. */
public final class InvalidRequestException extends RouterException {
  private final String param;

  public InvalidRequestException(String message, String param) {
    super(message, null);
    this.param = param;
  }

  /** The offending request field, or {@code null} when the problem is the whole body. */
  public String param() {
    return param;
  }
}
