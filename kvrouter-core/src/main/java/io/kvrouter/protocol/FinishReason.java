package io.kvrouter.protocol;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Map;
import java.util.Objects;

/**
 * Why generation ended, as Dynamo serializes it: a plain string ({@code "eos"}, {@code "length"},
 * {@code "stop"}, {@code "cancelled"}, {@code "content_filter"}) or, for an error, the object
 * {@code {"error": "message"}} (serde's form of the {@code Error(String)} variant). {@code "abort"}
 * is read as cancelled, and the string {@code "error: message"} (the variant's {@code Display} and
 * {@code FromStr} form, which Python workers such as Dynamo's vLLM handler send) as an error.
 * Checked against {@code lib/llm/src/protocols/common.rs} of ai-dynamo/dynamo at commit {@code
 * 0ab244160cdc9ec08558f554b6c62990771d715a}.
 */
public record FinishReason(Kind kind, String errorMessage) {

  public enum Kind {
    EOS("eos"),
    LENGTH("length"),
    STOP("stop"),
    CANCELLED("cancelled"),
    CONTENT_FILTER("content_filter"),
    ERROR("error");

    private final String wireName;

    Kind(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }
  }

  public static final FinishReason EOS = new FinishReason(Kind.EOS, null);
  public static final FinishReason LENGTH = new FinishReason(Kind.LENGTH, null);
  public static final FinishReason STOP = new FinishReason(Kind.STOP, null);
  public static final FinishReason CANCELLED = new FinishReason(Kind.CANCELLED, null);

  public FinishReason {
    Objects.requireNonNull(kind, "kind");
    if ((kind == Kind.ERROR) != (errorMessage != null)) {
      throw new IllegalArgumentException("an error message goes with, and only with, ERROR");
    }
  }

  public static FinishReason error(String message) {
    return new FinishReason(Kind.ERROR, Objects.requireNonNull(message));
  }

  /**
   * The reason an OpenAI client sees: {@code length} stays, everything else (end of sequence, stop
   * condition, cancellation, error) is {@code stop}, as Dynamo maps it.
   */
  public String openAiName() {
    return switch (kind) {
      case LENGTH -> "length";
      case CONTENT_FILTER -> "content_filter";
      default -> "stop";
    };
  }

  @JsonValue
  Object toJson() {
    return kind == Kind.ERROR ? Map.of("error", errorMessage) : kind.wireName;
  }

  /** The prefix of the string form of an error, as Dynamo's {@code FromStr} reads it. */
  private static final String ERROR_PREFIX = "error: ";

  /** Whether generation ended with an error the engine reported. */
  public boolean isError() {
    return kind == Kind.ERROR;
  }

  @JsonCreator
  static FinishReason fromJson(Object json) {
    if (json instanceof String name) {
      if (name.equals("abort")) {
        return CANCELLED;
      }
      if (name.startsWith(ERROR_PREFIX)) {
        return error(name.substring(ERROR_PREFIX.length()));
      }
      for (Kind kind : Kind.values()) {
        if (kind != Kind.ERROR && kind.wireName.equals(name)) {
          return new FinishReason(kind, null);
        }
      }
    } else if (json instanceof Map<?, ?> map && map.size() == 1 && map.containsKey("error")) {
      return error(String.valueOf(map.get("error")));
    }
    throw new IllegalArgumentException("unknown finish_reason: " + json);
  }
}
