package io.kvrouter.preprocess.template;

/**
 * A chat template could not render a conversation. The message says what failed (the template's own
 * {@code raise_exception} message, the Jinja error and its line, or that the model has no
 * template), and {@link #reason()} says whose fault it is.
 */
public final class ChatTemplateException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Why rendering failed. */
  public enum Reason {
    /**
     * The template rejected the conversation through {@code raise_exception} (for example
     * "Conversation roles must alternate user/assistant/..."): the client's error.
     */
    REJECTED,
    /** The model has no chat template, so chat requests cannot be served: the client's error. */
    MISSING,
    /**
     * The template is broken or uses a feature the renderer does not support: the server's error.
     */
    FAILED
  }

  private final Reason reason;

  public ChatTemplateException(String message, Reason reason) {
    this(message, reason, null);
  }

  public ChatTemplateException(String message, Reason reason, Throwable cause) {
    super(message, cause);
    this.reason = java.util.Objects.requireNonNull(reason, "reason");
  }

  public Reason reason() {
    return reason;
  }

  /**
   * True when the request, not the server, is at fault ({@link Reason#REJECTED} or {@link
   * Reason#MISSING}).
   */
  public boolean isClientError() {
    return reason != Reason.FAILED;
  }
}
