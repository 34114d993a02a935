package io.kvrouter.preprocess.parse;

import java.util.Objects;

/** A piece of a model's output once parsed: answer text, reasoning text, or one tool call. */
public sealed interface OutputPiece {

  /** Text of the answer. */
  record Content(String text) implements OutputPiece {
    public Content {
      Objects.requireNonNull(text, "text");
    }
  }

  /** Text of the model's reasoning. */
  record Reasoning(String text) implements OutputPiece {
    public Reasoning {
      Objects.requireNonNull(text, "text");
    }
  }

  /**
   * One complete tool call.
   *
   * @param arguments the arguments as a JSON text, as the OpenAI API carries them
   */
  record ToolCall(String name, String arguments) implements OutputPiece {
    public ToolCall {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(arguments, "arguments");
    }
  }
}
