package io.kvrouter.protocol.msgpack;

import java.util.Locale;
import org.msgpack.value.ValueType;

/** A value of another type than the one asked for, e.g. a string where an array should be. */
public final class MsgpackTypeException extends MsgpackFormatException {
  private static final long serialVersionUID = 1L;

  private final String expected;
  private final ValueType found;

  MsgpackTypeException(String expected, ValueType found, int offset) {
    super("expected " + expected + ", got " + found.name().toLowerCase(Locale.ROOT), offset);
    this.expected = expected;
    this.found = found;
  }

  /** What was asked for, with its article: {@code "an array"}, {@code "bin"}. */
  public String expected() {
    return expected;
  }

  /** The type of the value that is there. */
  public ValueType found() {
    return found;
  }
}
