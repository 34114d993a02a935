package io.kvrouter.protocol.msgpack;

/**
 * Input that a {@link MsgpackReader} cannot read as asked: truncated, the never-used byte {@code
 * 0xc1}, invalid UTF-8, a length header that no Java array can hold, or a negative integer where an
 * unsigned one was asked. The subclasses carry the parts of a wrong type ({@link
 * MsgpackTypeException}) and of a length longer than the input ({@link MsgpackLengthException}), so
 * that a codec can word them its own way. The reader does not know which field it is reading: the
 * codecs name it when they rethrow.
 */
public class MsgpackFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String problem;
  private final int offset;

  MsgpackFormatException(String problem, int offset) {
    super(problem + " (at byte " + offset + ")");
    this.problem = problem;
    this.offset = offset;
  }

  /** What is wrong, without the place, e.g. {@code "truncated input"}. */
  public String problem() {
    return problem;
  }

  /** Where the value that could not be read starts, in bytes from the start of the input. */
  public int offset() {
    return offset;
  }
}
