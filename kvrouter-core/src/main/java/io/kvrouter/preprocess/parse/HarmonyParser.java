package io.kvrouter.preprocess.parse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * gpt-oss's harmony format: the answer is a series of messages, each a header, {@code <|message|>},
 * a body, and an end ({@code <|end|>}, {@code <|call|>} or {@code <|return|>}):
 *
 * <pre>
 *   &lt;|channel|&gt;analysis&lt;|message|&gt;REASONING&lt;|end|&gt;
 *   &lt;|start|&gt;assistant to=functions.NAME&lt;|channel|&gt;commentary json&lt;|message|&gt;{ARGS}&lt;|call|&gt;
 *   &lt;|start|&gt;assistant&lt;|channel|&gt;final&lt;|message|&gt;ANSWER&lt;|return|&gt;
 * </pre>
 *
 * The first header lacks {@code <|start|>assistant}: the prompt ends with it. The {@code analysis}
 * channel is reasoning, {@code final} is content, and a message addressed {@code to=functions.NAME}
 * (in the header's role part or after its channel) is a tool call whose body is the arguments.
 * Bodies stream as they come; a marker cut across deltas is held back. The markers are special
 * tokens, so the output is decoded with them. {@code <|call|>} and {@code <|return|>} are gpt-oss's
 * end-of-sequence tokens and usually never reach the text.
 */
final class HarmonyParser {
  private static final String MESSAGE = "<|message|>";
  private static final String[] ENDS = {"<|end|>", "<|call|>", "<|return|>"};
  private static final String START = "<|start|>";
  private static final String FUNCTIONS = "to=functions.";

  private final boolean reasoning;
  private final boolean toolCalls;
  private final StringBuilder held = new StringBuilder();

  /** The current message's header once complete, or null while it is being read. */
  private String header;

  private final StringBuilder callArguments = new StringBuilder();

  HarmonyParser(boolean reasoning, boolean toolCalls) {
    this.reasoning = reasoning;
    this.toolCalls = toolCalls;
  }

  void accept(String text, List<OutputPiece> out) {
    held.append(text);
    while (true) {
      if (header == null) {
        int at = held.indexOf(MESSAGE);
        if (at < 0) {
          return;
        }
        header = held.substring(0, at);
        held.delete(0, at + MESSAGE.length());
        continue;
      }
      int end = -1;
      int endLength = 0;
      for (String marker : ENDS) {
        int at = held.indexOf(marker);
        if (at >= 0 && (end < 0 || at < end)) {
          end = at;
          endLength = marker.length();
        }
      }
      if (end < 0) {
        int keep = 0;
        for (String marker : ENDS) {
          keep = Math.max(keep, HeldText.partialMarkerAtEnd(held, marker));
        }
        body(held.substring(0, held.length() - keep), out);
        held.delete(0, held.length() - keep);
        return;
      }
      body(held.substring(0, end), out);
      held.delete(0, end + endLength);
      endMessage(out);
      if (held.indexOf(START) == 0) {
        held.delete(0, START.length());
      }
    }
  }

  void finish(List<OutputPiece> out) {
    if (header == null) {
      // an answer that never opened a message: plain text
      emitContent(held.toString(), out);
    } else {
      body(held.toString(), out);
      endMessage(out);
    }
    held.setLength(0);
  }

  private void body(String text, List<OutputPiece> out) {
    if (text.isEmpty()) {
      return;
    }
    if (recipient() != null && toolCalls) {
      callArguments.append(text);
    } else if (header.contains("<|channel|>analysis") && reasoning) {
      out.add(new OutputPiece.Reasoning(text));
    } else {
      emitContent(text, out);
    }
  }

  private void endMessage(List<OutputPiece> out) {
    String name = recipient();
    if (name != null && toolCalls) {
      String arguments = callArguments.toString();
      JsonNode json = ToolCallJson.parse(arguments);
      out.add(
          json != null && json.isObject()
              ? new OutputPiece.ToolCall(name, ToolCallJson.pythonDumps(json))
              : new OutputPiece.ToolCall(name, arguments));
      callArguments.setLength(0);
    }
    header = null;
  }

  /** The function the current message calls, or null. */
  private String recipient() {
    int at = header.indexOf(FUNCTIONS);
    if (at < 0) {
      return null;
    }
    int from = at + FUNCTIONS.length();
    int to = from;
    while (to < header.length()
        && !Character.isWhitespace(header.charAt(to))
        && header.charAt(to) != '<') {
      to++;
    }
    return header.substring(from, to);
  }

  private static void emitContent(String text, List<OutputPiece> out) {
    if (!text.isEmpty()) {
      out.add(new OutputPiece.Content(text));
    }
  }
}
