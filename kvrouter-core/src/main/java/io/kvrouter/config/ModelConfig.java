package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The served model.
 *
 * @param path the Hugging Face model folder, or {@code null} for the demo tokenizer
 * @param servedName the name clients request
 * @param reasoningParser {@code --reasoning-parser}, or null
 * @param toolCallParser {@code --tool-call-parser}, or null
 * @param contextLength {@code --context-length}: the most tokens of prompt and completion of one
 *     request, or null to take the model folder's
 */
public record ModelConfig(
    Path path,
    String servedName,
    int kvCacheBlockSize,
    String reasoningParser,
    String toolCallParser,
    Integer contextLength) {

  public static final String DEMO_MODEL_NAME = "mock-model";

  public ModelConfig {
    Objects.requireNonNull(servedName, "servedName");
  }
}
