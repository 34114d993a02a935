package io.kvrouter.protocol.msgpack;

/**
 * A length header that announces more than the bytes left: an array of more elements, a map of more
 * entries, a string or bin of more bytes. Caught at the header, before anything is allocated for it
 * (an array element takes at least one byte, a map entry two).
 */
public final class MsgpackLengthException extends MsgpackFormatException {
  private static final long serialVersionUID = 1L;

  private final String subject;
  private final int left;

  MsgpackLengthException(String withArticle, String subject, int left, int offset) {
    super(withArticle + " cannot fit in the " + left + " bytes left", offset);
    this.subject = subject;
    this.left = left;
  }

  /** What the header announces, without an article: {@code "array of 9 elements"}. */
  public String subject() {
    return subject;
  }

  /** The bytes left after the header. */
  public int left() {
    return left;
  }
}
