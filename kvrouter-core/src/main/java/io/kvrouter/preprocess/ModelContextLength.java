package io.kvrouter.preprocess;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A model folder's context length, derived from its files the way vLLM derives the default of
 * {@code --max-model-len}, so that the router refuses what the worker would refuse:
 *
 * <ol>
 *   <li>the smallest of the position limits {@code config.json} states (GPT-2's {@code
 *       n_positions}, Llama's {@code max_position_embeddings}, ...; a multimodal model's from its
 *       {@code text_config}), where the config's own {@code model_max_length} (Command-R) wins;
 *   <li>capped by {@code tokenizer_config.json}'s {@code model_max_length}, unless that is
 *       transformers' "no limit" stand-in (10^30) or otherwise beyond an int;
 *   <li>2048 when {@code config.json} exists and states no limit at all (vLLM's assumption);
 *   <li>times the rope scaling factor, unless the rope type's limit already includes it (su,
 *       longrope, llama3, and every Gemma 3); yarn scales its {@code
 *       original_max_position_embeddings}.
 * </ol>
 *
 * A folder with neither file stating a limit (a tokenizer-only folder) has no context length.
 */
final class ModelContextLength {
  private ModelContextLength() {}

  /** What vLLM assumes for a model whose config states no position limit. */
  static final int UNSTATED_CONFIG_DEFAULT = 2048;

  /** Keys of {@code config.json} that bound a model's positions, as model families name it. */
  private static final List<String> POSITION_KEYS =
      List.of(
          "max_position_embeddings",
          "n_positions",
          "max_seq_len",
          "seq_length",
          "model_max_length",
          "max_target_positions",
          "max_sequence_length",
          "max_seq_length",
          "seq_len");

  /** Rope types whose stated position limit is already the scaled one. */
  private static final Set<String> PRESCALED_ROPE_TYPES = Set.of("su", "longrope", "llama3");

  /**
   * @param config {@code config.json}, or null when the folder has none
   * @param tokenizerConfig {@code tokenizer_config.json}, or null when the folder has none
   */
  static OptionalInt derive(JsonNode config, JsonNode tokenizerConfig) {
    JsonNode text = config == null ? null : textConfig(config);
    double length = Double.POSITIVE_INFINITY;
    if (text != null) {
      for (String key : POSITION_KEYS) {
        if (positive(text.get(key))) {
          length = Math.min(length, text.get(key).asDouble());
        }
      }
      if (positive(text.get("model_max_length"))) {
        length = text.get("model_max_length").asDouble();
      }
    }
    JsonNode tokenizerLimit =
        tokenizerConfig == null ? null : tokenizerConfig.get("model_max_length");
    if (positive(tokenizerLimit) && tokenizerLimit.asDouble() <= Integer.MAX_VALUE) {
      length = Math.min(length, tokenizerLimit.asDouble());
    }
    if (Double.isInfinite(length)) {
      if (config == null) {
        return OptionalInt.empty();
      }
      length = UNSTATED_CONFIG_DEFAULT;
    }
    if (text != null) {
      length = ropeScaled(config, text, length);
    }
    return OptionalInt.of((int) Math.min(Integer.MAX_VALUE, Math.max(1, Math.floor(length))));
  }

  /** The language model's part of a config: a multimodal model's {@code text_config}. */
  private static JsonNode textConfig(JsonNode config) {
    JsonNode text = config.get("text_config");
    return text != null && text.isObject() ? text : config;
  }

  private static double ropeScaled(JsonNode config, JsonNode text, double length) {
    JsonNode rope = text.get("rope_scaling");
    if (rope == null || !rope.isObject()) {
      // transformers 5 calls it rope_parameters
      rope = text.get("rope_parameters");
    }
    if (rope == null || !rope.isObject() || isGemma3(config) || isGemma3(text)) {
      return length;
    }
    String type = rope.path("rope_type").asText(rope.path("type").asText("default"));
    if (PRESCALED_ROPE_TYPES.contains(type.toLowerCase(Locale.ROOT))) {
      return length;
    }
    double scaled = length;
    if (type.equalsIgnoreCase("yarn") && positive(rope.get("original_max_position_embeddings"))) {
      scaled = rope.get("original_max_position_embeddings").asDouble();
    }
    return positive(rope.get("factor")) ? scaled * rope.get("factor").asDouble() : scaled;
  }

  private static boolean isGemma3(JsonNode config) {
    return config.path("model_type").asText("").contains("gemma3");
  }

  private static boolean positive(JsonNode value) {
    return value != null && value.isNumber() && value.asDouble() > 0;
  }
}
