package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The served model.
 *
 * @param path the Hugging Face model folder, or {@code null} for the demo tokenizer
 * @param servedName the name clients request
 */
public record ModelConfig(Path path, String servedName, int kvCacheBlockSize) {

  public static final String DEMO_MODEL_NAME = "mock-model";

  public ModelConfig {
    Objects.requireNonNull(servedName, "servedName");
  }
}
