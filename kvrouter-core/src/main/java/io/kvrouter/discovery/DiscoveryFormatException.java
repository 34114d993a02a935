package io.kvrouter.discovery;

/** A discovery key or value that is not in Dynamo's format; the message names the key and field. */
public final class DiscoveryFormatException extends RuntimeException {
  public DiscoveryFormatException(String message) {
    super(message);
  }

  public DiscoveryFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
