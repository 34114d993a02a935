package io.kvrouter.tools.trace;

/** A trace file that cannot be read or holds a bad record; the message names file and line. */
public final class TraceFormatException extends IllegalArgumentException {
  public TraceFormatException(String message) {
    super(message);
  }
}
