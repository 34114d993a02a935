package io.kvrouter.preprocess.tokenizer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What the real-model golden tests share: the models in the folders {@code
 * scripts/fetch-test-models} caches (the scripts under {@code scripts/golden/} write one fixture
 * per model), reading a JSON fixture (each model's tokenizer is {@link TestModels#tokenizer},
 * loaded once per JVM).
 */
final class ModelGoldens {
  static final List<String> MODELS =
      List.of(
          "qwen3",
          "qwen2_5",
          "llama3",
          "llama3_1",
          "llama3_2",
          "deepseek_v3",
          "gemma3",
          "gptoss",
          "mistral_nemo");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Reads a JSON test resource, for example {@code /golden/tokenization/cases.json}. */
  static JsonNode read(String resource) {
    try (InputStream in = ModelGoldens.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + resource);
      }
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The tokenization cases: the written ones of {@code cases.json}, then those {@code
   * scripts/unicode-tables} generates into {@code cases-unicode.json} (code points added to Unicode
   * since the JDK 17 tables).
   */
  static List<JsonNode> tokenizationCases() {
    List<JsonNode> cases = new ArrayList<>();
    for (String file : List.of("cases.json", "cases-unicode.json")) {
      read("/golden/tokenization/" + file).get("cases").forEach(cases::add);
    }
    return cases;
  }

  static int[] ints(JsonNode array) {
    int[] out = new int[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).intValue();
    }
    return out;
  }
}
