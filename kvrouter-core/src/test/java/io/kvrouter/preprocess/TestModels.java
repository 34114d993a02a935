package io.kvrouter.preprocess;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real model folders the preprocess tests load, fetched by {@code scripts/fetch-test-models}
 * (Maven runs it in generate-test-resources). The folder is the {@code KVROUTER_TEST_MODELS}
 * environment variable when set (the script honours it too), else the {@code kvrouter.test.models}
 * system property set by the pom, else {@code ~/.cache/kvrouter/models}.
 */
public final class TestModels {
  private TestModels() {}

  public static Path root() {
    String env = System.getenv("KVROUTER_TEST_MODELS");
    if (env != null && !env.isBlank()) {
      return Path.of(env);
    }
    String prop = System.getProperty("kvrouter.test.models");
    if (prop != null && !prop.isBlank()) {
      return Path.of(prop);
    }
    return Path.of(System.getProperty("user.home"), ".cache", "kvrouter", "models");
  }

  /** The folder of {@code model} ("qwen3" or "llama3"); fails when its files are missing. */
  public static Path dir(String model) {
    Path dir = root().resolve(model);
    for (String file : new String[] {"tokenizer.json", "tokenizer_config.json"}) {
      if (!Files.isRegularFile(dir.resolve(file))) {
        throw new AssertionError(
            "missing test model file "
                + dir.resolve(file)
                + ": run scripts/fetch-test-models (mvn runs it in generate-test-resources)");
      }
    }
    return dir;
  }

  public static Path tokenizerJson(String model) {
    return dir(model).resolve("tokenizer.json");
  }
}
