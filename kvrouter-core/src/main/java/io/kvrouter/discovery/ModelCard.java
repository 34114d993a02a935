package io.kvrouter.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * A model deployment card ({@code ModelDeploymentCard}, {@code
 * lib/llm/src/model_card.rs} @01159fcc): the JSON as stored ({@link #json()}, every field, known or
 * not) and the fields a router needs, read from it.
 *
 * @param json the card as it came or as it will be written
 * @param displayName the served model name, what a request's {@code model} matches
 * @param slug the card's slug ({@link ModelSlug})
 * @param sourcePath the HF repo id or local path of the model's files, if the card names one
 * @param contextLength the effective context length: {@code runtime_config.context_length}, then
 *     {@code architectural_max_context_length}, then the top-level {@code context_length} (Dynamo's
 *     {@code effective_context_length}); empty when none is above 0
 * @param kvCacheBlockSize tokens per KV block
 * @param migrationLimit how often a request may move to another worker
 * @param modelType the {@code ModelType} bitflags as written, e.g. {@code "Chat | Completions"}
 * @param modelInput {@code Text}, {@code Tokens} or {@code Tensor}
 * @param runtimeConfig the engine's runtime facts
 * @param files the card's file references by field ({@code model_info}, {@code tokenizer}, {@code
 *     prompt_formatter}, {@code chat_template_file}, {@code gen_config})
 */
public record ModelCard(
    JsonNode json,
    String displayName,
    String slug,
    Optional<String> sourcePath,
    OptionalInt contextLength,
    int kvCacheBlockSize,
    int migrationLimit,
    String modelType,
    String modelInput,
    RuntimeConfig runtimeConfig,
    Map<String, CardFile> files) {

  /** The card fields that hold file references, in Dynamo's declaration order. */
  public static final java.util.List<String> FILE_FIELDS =
      java.util.List.of(
          "model_info", "tokenizer", "prompt_formatter", "chat_template_file", "gen_config");

  public ModelCard {
    Objects.requireNonNull(json, "json");
    Objects.requireNonNull(displayName, "displayName");
    Objects.requireNonNull(slug, "slug");
    Objects.requireNonNull(sourcePath, "sourcePath");
    Objects.requireNonNull(contextLength, "contextLength");
    Objects.requireNonNull(modelType, "modelType");
    Objects.requireNonNull(modelInput, "modelInput");
    Objects.requireNonNull(runtimeConfig, "runtimeConfig");
    files = Map.copyOf(files);
  }

  /** Whether the card's {@code model_type} has the flag {@code name} ({@code Chat}, ...). */
  public boolean hasModelType(String name) {
    for (String flag : modelType.split("\\|")) {
      if (flag.trim().equals(name)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The card a kvrouter worker writes, with the fields of a Dynamo card a frontend needs
   * (docs/notes/dynamo-discovery.md §1.6, §1.7): model type {@code Chat | Completions}, input
   * {@code Tokens}, migration limit 0, and a top-level {@code context_length} for v1.2–v1.4
   * readers.
   *
   * @param files file references by card field (see {@link #FILE_FIELDS}); a missing {@code
   *     model_info} or {@code tokenizer} is written as {@code null}, as Dynamo does
   */
  public static ModelCard forWorker(
      String displayName,
      Optional<String> sourcePath,
      int contextLength,
      int kvCacheBlockSize,
      RuntimeConfig runtime,
      Map<String, CardFile> files) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode card = f.objectNode();
    card.put("display_name", displayName);
    card.put("slug", ModelSlug.of(displayName));
    sourcePath.ifPresent(p -> card.put("source_path", p));
    for (String field : FILE_FIELDS) {
      CardFile file = files.get(field);
      if (file != null) {
        card.set(field, ModelCardJson.fileJson(file));
      } else if (field.equals("model_info") || field.equals("tokenizer")) {
        card.putNull(field);
      }
    }
    card.put("context_length", contextLength);
    card.put("kv_cache_block_size", kvCacheBlockSize);
    card.put("migration_limit", 0);
    card.put("model_type", "Chat | Completions");
    card.put("model_input", "Tokens");
    card.set("runtime_config", ModelCardJson.runtimeJson(runtime));
    card.putNull("media_decoder");
    card.putNull("media_fetcher");
    return ModelCardJson.parse(ModelCardJson.asRead(card), "card");
  }
}
