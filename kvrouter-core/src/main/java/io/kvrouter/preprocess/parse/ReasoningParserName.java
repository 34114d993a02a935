package io.kvrouter.preprocess.parse;

import java.util.Arrays;
import java.util.Optional;

/**
 * The reasoning parsers, by the names Dynamo's {@code --dyn-reasoning-parser} and vLLM's {@code
 * --reasoning-parser} use. {@code basic}, {@code deepseek_r1} and {@code qwen3} read {@code
 * <think>...</think>} blocks (whether the output starts inside one is read from the prompt, see
 * {@link OutputParser}); {@code gpt_oss} reads the harmony format's {@code analysis} channel.
 */
public enum ReasoningParserName {
  BASIC("basic"),
  DEEPSEEK_R1("deepseek_r1"),
  QWEN3("qwen3"),
  GPT_OSS("gpt_oss");

  private final String cliName;

  ReasoningParserName(String cliName) {
    this.cliName = cliName;
  }

  public String cliName() {
    return cliName;
  }

  /** Whether the output must be decoded with special tokens for this parser to see its markers. */
  public boolean needsSpecialTokens() {
    return this == GPT_OSS;
  }

  public static Optional<ReasoningParserName> of(String name) {
    return Arrays.stream(values()).filter(p -> p.cliName.equals(name)).findFirst();
  }

  /** The names, comma-separated, for help texts and errors. */
  public static String names() {
    return String.join(", ", Arrays.stream(values()).map(p -> p.cliName).toList());
  }
}
