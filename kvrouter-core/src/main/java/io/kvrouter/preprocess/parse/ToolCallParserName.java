package io.kvrouter.preprocess.parse;

import java.util.Arrays;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The tool-call parsers, by the names Dynamo's {@code --dyn-tool-call-parser} and vLLM's {@code
 * --tool-call-parser} use, each for the syntax of a model family.
 */
public enum ToolCallParserName {
  /** Qwen 2.5 and Qwen 3: {@code <tool_call>{json}</tool_call>}. */
  HERMES("hermes", HermesSyntax::new),
  /** Llama 3.1 and 3.2: the answer is a JSON object with {@code name} and {@code parameters}. */
  LLAMA3_JSON("llama3_json", Llama3JsonSyntax::new),
  /** Mistral Nemo: {@code [TOOL_CALLS][{json}, ...]}. */
  MISTRAL("mistral", MistralSyntax::new),
  /** DeepSeek V3: its {@code <｜tool▁calls▁begin｜>} blocks. */
  DEEPSEEK_V3("deepseek_v3", DeepSeekV3Syntax::new),
  /** gpt-oss: harmony messages addressed {@code to=functions.NAME} ({@link HarmonyParser}). */
  HARMONY("harmony", null);

  private final String cliName;
  private final Supplier<ToolCallSyntax> syntax;

  ToolCallParserName(String cliName, Supplier<ToolCallSyntax> syntax) {
    this.cliName = cliName;
    this.syntax = syntax;
  }

  public String cliName() {
    return cliName;
  }

  ToolCallSyntax syntax() {
    return syntax.get();
  }

  /** Whether the output must be decoded with special tokens for this parser to see its markers. */
  public boolean needsSpecialTokens() {
    return this == HARMONY || syntax.get().needsSpecialTokens();
  }

  public static Optional<ToolCallParserName> of(String name) {
    return Arrays.stream(values()).filter(p -> p.cliName.equals(name)).findFirst();
  }

  /** The names, comma-separated, for help texts and errors. */
  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(p -> p.cliName).toList());
  }
}
