package io.kvrouter.jinja;

/**
 * A template failed to parse or render. {@link #kind()} names the Python exception Jinja2 (or the
 * template itself) would raise: {@code TemplateError} for {@code raise_exception(...)}, {@code
 * UndefinedError}, {@code TypeError}, {@code SecurityError}, {@code TemplateSyntaxError}, {@code
 * RecursionError} and {@code MemoryError} for the limits of {@link Limits}, or {@code Unsupported}
 * for a construct this renderer does not implement. {@code InternalError} is a Java exception the
 * renderer did not expect (a bug, the exception is the cause). {@link #pythonMessage()} is the
 * message Python would carry; {@link #getMessage()} adds the kind and the template line.
 */
public final class TemplateError extends RuntimeException {
  private static final String INTERNAL_ERROR = "InternalError";

  private final String kind;
  private final String pythonMessage;
  private final boolean raisedByTemplate;
  private int line;

  TemplateError(String kind, String pythonMessage, int line, boolean raisedByTemplate) {
    this(kind, pythonMessage, line, raisedByTemplate, null);
  }

  private TemplateError(
      String kind, String pythonMessage, int line, boolean raisedByTemplate, Throwable cause) {
    // a TemplateError is an expected outcome: its stack trace is not needed, only its cause's
    super(pythonMessage, cause, false, false);
    this.kind = kind;
    this.pythonMessage = pythonMessage;
    this.line = line;
    this.raisedByTemplate = raisedByTemplate;
  }

  static TemplateError of(String kind, String message) {
    return new TemplateError(kind, message, 0, false);
  }

  static TemplateError typeError(String message) {
    return of("TypeError", message);
  }

  static TemplateError unsupported(String what) {
    return of("Unsupported", "unsupported template construct: " + what);
  }

  static TemplateError syntax(String message, int line) {
    return new TemplateError("TemplateSyntaxError", message, line, false);
  }

  static TemplateError raised(String message) {
    return new TemplateError("TemplateError", message, 0, true);
  }

  /** A Java exception the renderer did not expect: reported, with its cause, as a TemplateError. */
  static TemplateError internal(RuntimeException e) {
    return new TemplateError(INTERNAL_ERROR, "unexpected " + e, 0, false, e);
  }

  /** {@code e} itself if it is a TemplateError, else {@link #internal}. */
  static TemplateError from(RuntimeException e) {
    return e instanceof TemplateError t ? t : internal(e);
  }

  /**
   * The error to throw for {@code e}, raised in the statement at {@code line}: a TemplateError
   * keeps the line of an inner statement if it has one.
   */
  static TemplateError at(RuntimeException e, int line) {
    return from(e).atLine(line);
  }

  TemplateError atLine(int line) {
    if (this.line == 0) {
      this.line = line;
    }
    return this;
  }

  /** The Python exception type's name (see the class comment). */
  public String kind() {
    return kind;
  }

  /** The message as Python would carry it (for {@code raise_exception}, exactly its argument). */
  public String pythonMessage() {
    return pythonMessage;
  }

  /** True when the template itself rejected the input through {@code raise_exception(...)}. */
  public boolean raisedByTemplate() {
    return raisedByTemplate;
  }

  /**
   * True for {@code InternalError}: a Java exception the renderer did not expect, whose message
   * names Java classes and so is for a log, not for whoever sent the template's input.
   */
  public boolean unexpected() {
    return kind.equals(INTERNAL_ERROR);
  }

  /** The 1-based template line, 0 when unknown. */
  public int line() {
    return line;
  }

  @Override
  public String getMessage() {
    return kind + ": " + pythonMessage + (line > 0 ? " (template line " + line + ")" : "");
  }
}
