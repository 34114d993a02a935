package io.kvrouter.preprocess;

import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;

/**
 * The served model's output parsers ({@code --reasoning-parser}, {@code --tool-call-parser}).
 *
 * @param reasoning reads think blocks into {@code reasoning_content}, or null for none
 * @param toolCalls reads the model's tool-call syntax into {@code tool_calls}, or null for none
 */
public record OutputParsers(ReasoningParserName reasoning, ToolCallParserName toolCalls) {
  public static final OutputParsers NONE = new OutputParsers(null, null);
}
