package io.kvrouter.preprocess;

import io.kvrouter.preprocess.tokenizer.Tokenizer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The real model folders the preprocess tests load, fetched by {@code scripts/fetch-test-models}
 * (Maven runs it in generate-test-resources). The folder is the {@code KVROUTER_TEST_MODELS}
 * environment variable when set (the script honours it too), else the {@code kvrouter.test.models}
 * system property set by the pom, else {@code ~/.cache/kvrouter/models}.
 *
 * <p>A real tokenizer takes about a second to load, and every test class of a module runs in one
 * JVM: {@link #tokenizer} and {@link #assets} load each model once per JVM and share it. The shared
 * instances are never closed (the JVM's exit frees them); a test that closes what it loaded, or
 * that checks loading itself, loads its own.
 */
public final class TestModels {
  private static final Map<String, Tokenizer> TOKENIZERS = new ConcurrentHashMap<>();
  private static final Map<String, ModelAssets> ASSETS = new ConcurrentHashMap<>();

  private TestModels() {}

  /** {@code model}'s tokenizer as the router loads it ({@link Tokenizer#huggingFace}), shared. */
  public static Tokenizer tokenizer(String model) {
    return TOKENIZERS.computeIfAbsent(
        model,
        m -> {
          try {
            return Tokenizer.huggingFace(tokenizerJson(m));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  /** {@code model}'s folder as the router loads it ({@link ModelAssets#load}), shared. */
  public static ModelAssets assets(String model) {
    return ASSETS.computeIfAbsent(
        model,
        m -> {
          try {
            return ModelAssets.load(dir(m));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

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
