package io.kvrouter.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.OptionalInt;

/** {@link ModelCard} from and to its JSON ({@code card_json}). */
final class ModelCardJson {
  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  private ModelCardJson() {}

  /**
   * Reads a card. Required, as a Dynamo frontend requires them: {@code display_name}, {@code slug},
   * {@code kv_cache_block_size}, {@code model_type}, {@code model_input}; {@code migration_limit}
   * defaults to 0.
   */
  static ModelCard parse(JsonNode card, String where) {
    if (!card.isObject()) {
      throw new DiscoveryFormatException(where + " must be an object, not " + card);
    }
    String slug = JsonFields.text(card, "slug", where);
    if (!ModelSlug.isValid(slug)) {
      throw new DiscoveryFormatException(
          where + ": field 'slug' may hold only a-z, 0-9, - and _: '" + slug + "'");
    }
    JsonNode runtimeNode = card.get("runtime_config");
    RuntimeConfig runtime =
        runtimeNode == null || runtimeNode.isNull()
            ? RuntimeConfig.DEFAULTS
            : runtime(runtimeNode, where + ".runtime_config");
    return new ModelCard(
        card,
        JsonFields.text(card, "display_name", where),
        slug,
        JsonFields.optionalText(card, "source_path", where),
        effectiveContextLength(card, runtime, where),
        JsonFields.u32(card, "kv_cache_block_size", where),
        JsonFields.u32OrDefault(card, "migration_limit", where, 0),
        JsonFields.text(card, "model_type", where),
        JsonFields.text(card, "model_input", where),
        runtime,
        files(card, where));
  }

  private static OptionalInt effectiveContextLength(
      JsonNode card, RuntimeConfig runtime, String where) {
    for (OptionalInt candidate :
        new OptionalInt[] {
          runtime.contextLength(),
          JsonFields.optionalU32(card, "architectural_max_context_length", where),
          JsonFields.optionalU32(card, "context_length", where)
        }) {
      if (candidate.isPresent() && candidate.getAsInt() > 0) {
        return candidate;
      }
    }
    return OptionalInt.empty();
  }

  private static RuntimeConfig runtime(JsonNode node, String where) {
    if (!node.isObject()) {
      throw new DiscoveryFormatException(where + " must be an object, not " + node);
    }
    return new RuntimeConfig(
        JsonFields.optionalU32(node, "context_length", where),
        JsonFields.optionalU64(node, "total_kv_blocks", where),
        JsonFields.optionalU64(node, "max_num_seqs", where),
        JsonFields.optionalU64(node, "max_num_batched_tokens", where),
        JsonFields.u32OrDefault(node, "data_parallel_start_rank", where, 0),
        JsonFields.u32OrDefault(node, "data_parallel_size", where, 1),
        JsonFields.boolOrDefault(node, "enable_local_indexer", where, true));
  }

  /**
   * Each file field: an object with one variant tag, holding a CheckedFile or {is_custom, file}.
   */
  private static Map<String, CardFile> files(JsonNode card, String where) {
    Map<String, CardFile> files = new HashMap<>();
    for (String field : ModelCard.FILE_FIELDS) {
      JsonNode value = card.get(field);
      if (value == null || value.isNull()) {
        continue;
      }
      String at = where + "." + field;
      if (!value.isObject() || value.size() != 1) {
        throw new DiscoveryFormatException(
            at + " must be an object with one variant, not " + value);
      }
      Iterator<Map.Entry<String, JsonNode>> it = value.fields();
      Map.Entry<String, JsonNode> variant = it.next();
      JsonNode inner = variant.getValue();
      boolean custom = false;
      if (inner.has("file")) {
        custom = JsonFields.boolOrDefault(inner, "is_custom", at, false);
        inner = inner.get("file");
      }
      String fileAt = at + "." + variant.getKey();
      files.put(
          field,
          new CardFile(
              variant.getKey(),
              JsonFields.text(inner, "path", fileAt),
              JsonFields.text(inner, "checksum", fileAt),
              JsonFields.optionalU64(inner, "size", fileAt),
              custom));
    }
    return files;
  }

  /**
   * {@code card} as a reader gets it back from its bytes (numbers in the smallest node type that
   * holds them), so that a card built here equals the same card read from etcd.
   */
  static JsonNode asRead(JsonNode card) {
    try {
      return JSON.readTree(JSON.writeValueAsBytes(card));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static JsonNode fileJson(CardFile file) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    ObjectNode checked = f.objectNode();
    checked.put("path", file.path());
    checked.put("checksum", file.checksum());
    file.size().ifPresent(size -> checked.put("size", size));
    ObjectNode variant = f.objectNode();
    if (file.kind().startsWith("hf_chat_template")) {
      ObjectNode template = f.objectNode();
      template.put("is_custom", file.custom());
      template.set("file", checked);
      variant.set(file.kind(), template);
    } else {
      variant.set(file.kind(), checked);
    }
    return variant;
  }

  /** The runtime config as a kvrouter worker writes it: the fields of the note's §1.6 example. */
  static JsonNode runtimeJson(RuntimeConfig runtime) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    runtime.contextLength().ifPresent(v -> node.put("context_length", v));
    putOrNull(node, "total_kv_blocks", runtime.totalKvBlocks());
    putOrNull(node, "max_num_seqs", runtime.maxNumSeqs());
    putOrNull(node, "max_num_batched_tokens", runtime.maxNumBatchedTokens());
    node.putNull("tool_call_parser");
    node.putNull("reasoning_parser");
    node.put("data_parallel_start_rank", runtime.dataParallelStartRank());
    node.put("data_parallel_size", runtime.dataParallelSize());
    node.put("enable_local_indexer", runtime.enableLocalIndexer());
    return node;
  }

  private static void putOrNull(ObjectNode node, String field, java.util.OptionalLong value) {
    if (value.isPresent()) {
      node.put(field, value.getAsLong());
    } else {
      node.putNull(field);
    }
  }
}
