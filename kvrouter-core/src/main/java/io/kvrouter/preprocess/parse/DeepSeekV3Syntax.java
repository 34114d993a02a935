package io.kvrouter.preprocess.parse;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * DeepSeek V3 tool calls, as its chat template writes them back:
 *
 * <pre>
 * &lt;｜tool▁calls▁begin｜&gt;&lt;｜tool▁call▁begin｜&gt;function&lt;｜tool▁sep｜&gt;NAME
 * ```json
 * {ARGUMENTS}
 * ```&lt;｜tool▁call▁end｜&gt; ... &lt;｜tool▁calls▁end｜&gt;
 * </pre>
 *
 * The markers are ordinary added tokens (not special), so they are in the decoded text.
 */
final class DeepSeekV3Syntax extends MarkerSyntax {
  private static final String CALLS_END = "<｜tool▁calls▁end｜>";
  private static final Pattern CALL =
      Pattern.compile(
          "\\s*<｜tool▁call▁begin｜>function<｜tool▁sep｜>([^\\n]+)\\n```json\\n(.*?)\\n```"
              + "<｜tool▁call▁end｜>",
          Pattern.DOTALL);

  DeepSeekV3Syntax() {
    super("<｜tool▁calls▁begin｜>");
  }

  @Override
  public List<OutputPiece.ToolCall> parse(String section) {
    String body = afterMarker(section);
    int end = body.lastIndexOf(CALLS_END);
    if (end >= 0 && !body.substring(end + CALLS_END.length()).isBlank()) {
      return null;
    }
    body = end < 0 ? body : body.substring(0, end);
    List<OutputPiece.ToolCall> calls = new ArrayList<>();
    Matcher m = CALL.matcher(body);
    int pos = 0;
    while (pos < body.length()) {
      if (!m.find(pos) || m.start() != pos) {
        return body.substring(pos).isBlank() && !calls.isEmpty() ? calls : null;
      }
      JsonNode arguments = ToolCallJson.parse(m.group(2));
      if (arguments == null || !arguments.isObject()) {
        return null;
      }
      calls.add(new OutputPiece.ToolCall(m.group(1).strip(), ToolCallJson.pythonDumps(arguments)));
      pos = m.end();
    }
    return calls.isEmpty() ? null : calls;
  }
}
