package io.kvrouter.preprocess;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.template.ChatTemplate;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What the router needs to know about a model to preprocess its requests: the tokenizer, the chat
 * template, the token ids that end a generation, and a default model name.
 *
 * @param name the model name to serve when none is configured (the model folder's name)
 * @param tokenizer the model's tokenizer
 * @param chatTemplate the model's chat template; when the model has none, a stand-in whose {@code
 *     render} throws a {@code ChatTemplateException} explaining that (see {@link
 *     ChatTemplate#isAvailable()}), so the error shows up only when a chat request needs it
 * @param eosTokenIds the ids that end a generation: {@code generation_config.json}'s {@code
 *     eos_token_id} (an int or a list) followed by {@code tokenizer_config.json}'s {@code
 *     eos_token}, without duplicates; empty for the demo model
 * @param contextLength the most tokens of prompt and completion one request may hold ({@link
 *     ModelContextLength}), or empty when the model does not say (the demo model)
 */
public record ModelAssets(
    String name,
    Tokenizer tokenizer,
    ChatTemplate chatTemplate,
    List<Integer> eosTokenIds,
    OptionalInt contextLength)
    implements AutoCloseable {

  public static final String TOKENIZER_FILE = "tokenizer.json";
  public static final String TOKENIZER_CONFIG_FILE = "tokenizer_config.json";
  public static final String GENERATION_CONFIG_FILE = "generation_config.json";
  public static final String CHAT_TEMPLATE_FILE = "chat_template.jinja";
  public static final String MODEL_CONFIG_FILE = "config.json";

  private static final ObjectMapper JSON = new ObjectMapper();

  public ModelAssets {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(tokenizer, "tokenizer");
    Objects.requireNonNull(chatTemplate, "chatTemplate");
    eosTokenIds = List.copyOf(eosTokenIds);
    Objects.requireNonNull(contextLength, "contextLength");
  }

  /** The demo model: the byte tokenizer, the ChatML template and no eos ids, named "demo". */
  public static ModelAssets demo() {
    return new ModelAssets(
        "demo", Tokenizer.bytes(), ChatTemplate.chatMl(), List.of(), OptionalInt.empty());
  }

  /** The same assets under another name. */
  public ModelAssets withName(String newName) {
    return new ModelAssets(newName, tokenizer, chatTemplate, eosTokenIds, contextLength);
  }

  /** The same assets with another context length ({@code --context-length}). */
  public ModelAssets withContextLength(int tokens) {
    if (tokens < 1) {
      throw new IllegalArgumentException("context length must be >= 1: " + tokens);
    }
    return new ModelAssets(name, tokenizer, chatTemplate, eosTokenIds, OptionalInt.of(tokens));
  }

  /** Releases the tokenizer's native resources. */
  @Override
  public void close() {
    tokenizer.close();
  }

  /**
   * Loads a Hugging Face model folder.
   *
   * <ul>
   *   <li>{@code tokenizer.json}: required.
   *   <li>{@code chat_template.jinja}: optional; when present it is the chat template, whatever the
   *       tokenizer config says (transformers gives the separate file priority).
   *   <li>{@code tokenizer_config.json}: optional. Its {@code chat_template} is a string or a list
   *       of {@code {name, template}} (the one named "default" is used); {@code bos_token} and
   *       {@code eos_token} are strings or objects with a {@code content} field.
   *   <li>{@code generation_config.json}: optional; its {@code eos_token_id} is an int or a list.
   *   <li>{@code config.json}: optional; with {@code tokenizer_config.json}, it gives the context
   *       length ({@link ModelContextLength}).
   * </ul>
   *
   * @throws IOException when the folder or {@code tokenizer.json} is missing, or a file is
   *     unreadable or malformed; the message names the file and what is wrong with it
   */
  public static ModelAssets load(Path modelDir) throws IOException {
    Objects.requireNonNull(modelDir, "modelDir");
    if (!Files.exists(modelDir)) {
      throw new NoSuchFileException(modelDir.toString(), null, "model folder does not exist");
    }
    if (!Files.isDirectory(modelDir)) {
      throw new NotDirectoryException(modelDir + " (expected a model folder)");
    }
    Path tokenizerFile = modelDir.resolve(TOKENIZER_FILE);
    if (!Files.isRegularFile(tokenizerFile)) {
      throw new NoSuchFileException(
          tokenizerFile.toString(),
          null,
          "the model folder has no " + TOKENIZER_FILE + " (required)");
    }
    String name =
        modelDir.toAbsolutePath().normalize().getFileName() == null
            ? modelDir.toString()
            : modelDir.toAbsolutePath().normalize().getFileName().toString();

    Path configFile = modelDir.resolve(TOKENIZER_CONFIG_FILE);
    JsonNode config = Files.isRegularFile(configFile) ? readJson(configFile) : null;
    Path generationFile = modelDir.resolve(GENERATION_CONFIG_FILE);
    JsonNode generation = Files.isRegularFile(generationFile) ? readJson(generationFile) : null;
    Path modelConfigFile = modelDir.resolve(MODEL_CONFIG_FILE);
    JsonNode modelConfig = Files.isRegularFile(modelConfigFile) ? readJson(modelConfigFile) : null;

    String bosToken = config == null ? null : tokenText(config, "bos_token", configFile);
    String eosToken = config == null ? null : tokenText(config, "eos_token", configFile);
    ChatTemplate template = chatTemplate(modelDir, configFile, config, bosToken, eosToken);

    Tokenizer tokenizer = Tokenizer.huggingFace(tokenizerFile);
    try {
      Set<Integer> eos = new LinkedHashSet<>();
      if (generation != null) {
        eos.addAll(eosIds(generation, generationFile, tokenizer));
      }
      if (eosToken != null) {
        Optional<Integer> id = tokenizer.tokenId(eosToken);
        if (id.isEmpty()) {
          throw new IOException(
              configFile + ": eos_token \"" + eosToken + "\" is not a token of " + tokenizerFile);
        }
        eos.add(id.get());
      }
      return new ModelAssets(
          name,
          tokenizer,
          template,
          new ArrayList<>(eos),
          ModelContextLength.derive(modelConfig, config));
    } catch (IOException | RuntimeException e) {
      tokenizer.close();
      throw e;
    }
  }

  private static JsonNode readJson(Path file) throws IOException {
    try {
      JsonNode node = JSON.readTree(file.toFile());
      if (node == null || !node.isObject()) {
        throw new IOException(file + ": expected a JSON object");
      }
      return node;
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IOException(file + " is not valid JSON: " + e.getOriginalMessage(), e);
    }
  }

  /** A special token that is a string, an object with "content", or null/absent. */
  private static String tokenText(JsonNode config, String field, Path file) throws IOException {
    JsonNode v = config.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (v.isTextual()) {
      return v.asText();
    }
    if (v.isObject() && v.path("content").isTextual()) {
      return v.get("content").asText();
    }
    throw new IOException(
        file + ": " + field + " must be a string or an object with a \"content\" string, not " + v);
  }

  private static ChatTemplate chatTemplate(
      Path modelDir, Path configFile, JsonNode config, String bos, String eos) throws IOException {
    // as in transformers, a separate template file wins over the tokenizer config's entry
    Path jinja = modelDir.resolve(CHAT_TEMPLATE_FILE);
    if (Files.isRegularFile(jinja)) {
      return ChatTemplate.jinja(Files.readString(jinja, StandardCharsets.UTF_8), bos, eos);
    }
    JsonNode t = config == null ? null : config.get("chat_template");
    if (t != null && !t.isNull()) {
      if (t.isTextual()) {
        return ChatTemplate.jinja(t.asText(), bos, eos);
      }
      if (t.isArray()) {
        List<String> names = new ArrayList<>();
        for (JsonNode entry : t) {
          String entryName = entry.path("name").asText(null);
          JsonNode entryTemplate = entry.get("template");
          if (entryName == null || entryTemplate == null || !entryTemplate.isTextual()) {
            throw new IOException(
                configFile + ": chat_template list entries must be {\"name\", \"template\"}");
          }
          if (entryName.equals("default")) {
            return ChatTemplate.jinja(entryTemplate.asText(), bos, eos);
          }
          names.add(entryName);
        }
        return ChatTemplate.missing(
            "the model in "
                + modelDir
                + " has no default chat template ("
                + configFile.getFileName()
                + " names only "
                + names
                + ")");
      }
      throw new IOException(configFile + ": chat_template must be a string or a list, not " + t);
    }
    return ChatTemplate.missing(
        "the model in "
            + modelDir
            + " has no chat template (no chat_template in "
            + TOKENIZER_CONFIG_FILE
            + ", no "
            + CHAT_TEMPLATE_FILE
            + "), so it cannot serve chat requests; use /v1/completions with a prompt instead");
  }

  private static List<Integer> eosIds(JsonNode generation, Path file, Tokenizer tokenizer)
      throws IOException {
    JsonNode v = generation.get("eos_token_id");
    List<Integer> ids = new ArrayList<>();
    if (v == null || v.isNull()) {
      return ids;
    }
    if (v.isIntegralNumber()) {
      ids.add(v.asInt());
    } else if (v.isArray()) {
      for (JsonNode e : v) {
        if (!e.isIntegralNumber()) {
          throw new IOException(file + ": eos_token_id list holds a non-integer: " + e);
        }
        ids.add(e.asInt());
      }
    } else {
      throw new IOException(file + ": eos_token_id must be an integer or a list, not " + v);
    }
    for (int id : ids) {
      if (id < 0 || id >= tokenizer.vocabularySize()) {
        throw new IOException(
            file
                + ": eos_token_id "
                + id
                + " is outside the tokenizer's vocabulary [0, "
                + tokenizer.vocabularySize()
                + ")");
      }
    }
    return ids;
  }
}
