package io.kvrouter.protocol.vllm;

import static io.kvrouter.protocol.JsonValues.bool;
import static io.kvrouter.protocol.JsonValues.decimal;
import static io.kvrouter.protocol.JsonValues.integer;
import static io.kvrouter.protocol.JsonValues.longValue;
import static io.kvrouter.protocol.JsonValues.putIfSet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvrouter.protocol.EngineErrorEvent;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.OutputOptions;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * vLLM's token-in {@code POST /v1/completions}, both ways (docs/notes/plain-engines.md §1.1–§1.2;
 * vLLM {@code vllm/entrypoints/openai/completion/protocol.py} @002032ee, {@code
 * serving.py} @030ea52e): the router's {@link PreprocessedRequest} as the request body a {@code
 * vllm serve} takes, and each streamed chunk as the {@link EngineOutput} the router's pipeline
 * takes; the simulated worker reads and writes the same shapes.
 *
 * <p>The request carries the prompt as token ids ({@code prompt: [ids]}, which vLLM does not
 * tokenize again, so the blocks it caches are the blocks the router hashed), {@code stream: true}
 * with {@code stream_options.include_usage}, and {@code return_token_ids: true}, so that each
 * chunk's {@code choices[0].token_ids} holds the ids generated since the last chunk: the router
 * detokenizes them itself, as it does for a Dynamo worker. With logprobs asked for, {@code
 * return_tokens_as_token_ids} makes the top alternatives' keys {@code token_id:N}. A request in a
 * cache namespace carries it as vLLM's {@code cache_salt}, tagged as Dynamo tags it ({@link
 * VllmCacheSalt}), so that vLLM caches its blocks apart and its KV events name the namespace.
 *
 * <pre>
 * data: {"id":"cmpl-…","object":"text_completion","created":…,"model":"m",
 *        "choices":[{"index":0,"text":"Hel","logprobs":null,"finish_reason":null,
 *                    "stop_reason":null,"token_ids":[9906]}]}
 * data: {…,"choices":[{"index":0,"text":".","finish_reason":"stop","stop_reason":null,
 *                      "token_ids":[13]}]}
 * data: {…,"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}
 * data: [DONE]
 * </pre>
 *
 * A mid-stream error is {@code data: {"error": {"message": …}}}.
 */
public final class VllmCompletions {
  /** The route. */
  public static final String PATH = "/v1/completions";

  /** The end-of-stream event's data. */
  public static final String DONE = "[DONE]";

  /** vLLM's prefix of a token named by id in logprobs ({@code return_tokens_as_token_ids}). */
  private static final String TOKEN_ID_PREFIX = "token_id:";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private VllmCompletions() {}

  /** The streamed request body for {@code request}. */
  public static ObjectNode requestBody(PreprocessedRequest request) {
    ObjectNode body = JSON.objectNode().put("model", request.model());
    ArrayNode prompt = body.putArray("prompt");
    for (int id : request.tokenIds()) {
      prompt.add(id);
    }
    body.put("stream", true);
    body.putObject("stream_options").put("include_usage", true);
    body.put("return_token_ids", true);
    StopConditions stop = request.stopConditions();
    putIfSet(body, "max_tokens", stop.maxTokens());
    if (stop.stop() != null && !stop.stop().isEmpty()) {
      ArrayNode stops = body.putArray("stop");
      stop.stop().forEach(stops::add);
    }
    if (stop.stopTokenIds() != null && !stop.stopTokenIds().isEmpty()) {
      ArrayNode ids = body.putArray("stop_token_ids");
      stop.stopTokenIds().forEach(ids::add);
    }
    putIfSet(body, "min_tokens", stop.minTokens());
    putIfSet(body, "ignore_eos", stop.ignoreEos());
    SamplingOptions sampling = request.samplingOptions();
    putIfSet(body, "n", sampling.n());
    putIfSet(body, "seed", sampling.seed());
    putIfSet(body, "temperature", sampling.temperature());
    putIfSet(body, "top_p", sampling.topP());
    putIfSet(body, "top_k", sampling.topK());
    putIfSet(body, "min_p", sampling.minP());
    putIfSet(body, "presence_penalty", sampling.presencePenalty());
    putIfSet(body, "frequency_penalty", sampling.frequencyPenalty());
    putIfSet(body, "repetition_penalty", sampling.repetitionPenalty());
    OutputOptions output = request.outputOptions();
    if (output.logprobs() != null) {
      body.put("logprobs", output.logprobs()).put("return_tokens_as_token_ids", true);
    }
    putIfSet(body, "skip_special_tokens", output.skipSpecialTokens());
    request.cacheSalt().ifPresent(ns -> body.put("cache_salt", VllmCacheSalt.engineSalt(ns)));
    return body;
  }

  /**
   * The request a {@code /v1/completions} body asks for, as a simulated vLLM reads it: the prompt
   * must be token ids; {@code max_tokens} defaults to vLLM's 16; a {@code cache_salt} names the
   * request's namespace ({@link VllmCacheSalt#namespaceOf}).
   *
   * @param eosTokenIds the model's end-of-sequence ids (the engine's own, as vLLM's are)
   * @param dpRank the {@code X-data-parallel-rank} header's rank, if any
   * @throws IllegalArgumentException naming what is wrong with the body
   */
  public static PreprocessedRequest readRequest(
      JsonNode body, List<Integer> eosTokenIds, Optional<Integer> dpRank) {
    JsonNode prompt = body.get("prompt");
    if (prompt == null || !prompt.isArray() || prompt.isEmpty()) {
      throw new IllegalArgumentException("prompt must be a non-empty list of token ids");
    }
    int[] tokens = new int[prompt.size()];
    for (int i = 0; i < tokens.length; i++) {
      JsonNode id = prompt.get(i);
      if (!id.canConvertToInt() || !id.isIntegralNumber() || id.intValue() < 0) {
        throw new IllegalArgumentException("prompt[" + i + "] is not a token id");
      }
      tokens[i] = id.intValue();
    }
    JsonNode stop = body.get("stop");
    List<String> stops = new ArrayList<>();
    if (stop != null && stop.isTextual()) {
      stops.add(stop.textValue());
    } else if (stop != null && stop.isArray()) {
      stop.forEach(s -> stops.add(s.asText()));
    }
    List<Integer> stopIds = new ArrayList<>();
    JsonNode stopTokenIds = body.get("stop_token_ids");
    if (stopTokenIds != null && stopTokenIds.isArray()) {
      stopTokenIds.forEach(id -> stopIds.add(id.intValue()));
    }
    Integer maxTokens = integer(body, "max_tokens");
    PreprocessedRequest request =
        new PreprocessedRequest(
            body.path("model").asText(""),
            tokens,
            new StopConditions(
                maxTokens == null ? 16 : maxTokens,
                stops.isEmpty() ? null : stops,
                stopIds.isEmpty() ? null : stopIds,
                integer(body, "min_tokens"),
                bool(body, "ignore_eos")),
            new SamplingOptions(
                integer(body, "n"),
                longValue(body, "seed"),
                decimal(body, "temperature"),
                decimal(body, "top_p"),
                integer(body, "top_k"),
                decimal(body, "min_p"),
                decimal(body, "presence_penalty"),
                decimal(body, "frequency_penalty"),
                decimal(body, "repetition_penalty")),
            new OutputOptions(integer(body, "logprobs"), bool(body, "skip_special_tokens")),
            eosTokenIds,
            List.of());
    JsonNode salt = body.get("cache_salt");
    if (salt != null && !salt.isNull()) {
      if (!salt.isTextual() || salt.textValue().isEmpty()) {
        throw new IllegalArgumentException("cache_salt must be a non-empty string");
      }
      request = request.withCacheSalt(VllmCacheSalt.namespaceOf(salt.textValue()));
    }
    return dpRank.map(request::withDpRank).orElse(request);
  }

  /**
   * One streamed chunk's output, or empty for a chunk without a choice (the usage chunk).
   *
   * @throws EngineErrorEvent for an error event, with the engine's message
   * @throws IllegalArgumentException for a chunk that is not a completion chunk
   */
  public static Optional<EngineOutput> readChunk(JsonNode chunk) {
    JsonNode error = chunk.get("error");
    if (error != null && !error.isNull()) {
      throw new EngineErrorEvent(
          error.hasNonNull("message") ? error.get("message").asText() : error.toString());
    }
    JsonNode choices = chunk.get("choices");
    if (choices == null || !choices.isArray()) {
      throw new IllegalArgumentException("a completion chunk without choices: " + chunk);
    }
    if (choices.isEmpty()) {
      return Optional.empty();
    }
    JsonNode choice = choices.get(0);
    JsonNode ids = choice.get("token_ids");
    int[] tokenIds = new int[ids == null || !ids.isArray() ? 0 : ids.size()];
    for (int i = 0; i < tokenIds.length; i++) {
      tokenIds[i] = ids.get(i).intValue();
    }
    JsonNode stopReason = choice.get("stop_reason");
    FinishReason finish =
        finishReason(
            choice.hasNonNull("finish_reason") ? choice.get("finish_reason").asText() : null,
            stopReason == null || stopReason.isNull() ? null : stopReason);
    EngineOutput output = new EngineOutput(tokenIds, null, finish, null);
    JsonNode logprobs = choice.get("logprobs");
    if (logprobs != null && logprobs.isObject()) {
      output = withLogprobs(output, logprobs);
    }
    return Optional.of(output);
  }

  /**
   * vLLM's finish reason: {@code stop} is the end of sequence unless a stop string or token matched
   * ({@code stop_reason}); {@code abort} is a cancelled request.
   */
  static FinishReason finishReason(String name, Object stopReason) {
    if (name == null) {
      return null;
    }
    return switch (name) {
      case "stop" -> stopReason == null ? FinishReason.EOS : FinishReason.STOP;
      case "length" -> FinishReason.LENGTH;
      case "abort" -> FinishReason.CANCELLED;
      case "error" -> FinishReason.error("the engine failed the request");
      default -> throw new IllegalArgumentException("unknown finish_reason '" + name + "'");
    };
  }

  /** The legacy completions logprobs ({@code token_logprobs}, {@code top_logprobs}) as ours. */
  private static EngineOutput withLogprobs(EngineOutput output, JsonNode logprobs) {
    JsonNode chosen = logprobs.get("token_logprobs");
    JsonNode tops = logprobs.get("top_logprobs");
    List<Double> values = new ArrayList<>();
    if (chosen != null && chosen.isArray()) {
      chosen.forEach(v -> values.add(v.isNull() ? Double.NEGATIVE_INFINITY : v.doubleValue()));
    }
    List<List<EngineOutput.TopLogprob>> alternatives = null;
    if (tops != null && tops.isArray()) {
      alternatives = new ArrayList<>();
      for (JsonNode position : tops) {
        List<EngineOutput.TopLogprob> ranked = new ArrayList<>();
        int rank = 1;
        for (Iterator<Map.Entry<String, JsonNode>> it = position.fields(); it.hasNext(); ) {
          Map.Entry<String, JsonNode> entry = it.next();
          ranked.add(
              new EngineOutput.TopLogprob(
                  rank++, tokenId(entry.getKey()), null, entry.getValue().doubleValue()));
        }
        alternatives.add(ranked);
      }
    }
    return output.withLogprobs(values, alternatives);
  }

  /** The id in {@code token_id:N}. */
  private static int tokenId(String key) {
    if (!key.startsWith(TOKEN_ID_PREFIX)) {
      throw new IllegalArgumentException(
          "a logprobs token '" + key + "' is not token_id:N (return_tokens_as_token_ids)");
    }
    return Integer.parseInt(key.substring(TOKEN_ID_PREFIX.length()));
  }

  /**
   * One streamed chunk as vLLM writes it, for the simulated worker.
   *
   * @param text the new tokens' text
   * @param finishReason vLLM's name ({@code stop}, {@code length}, {@code abort}) or null
   */
  public static ObjectNode chunk(
      String id, long created, String model, String text, int[] tokenIds, String finishReason) {
    ObjectNode chunk = head(id, created, model);
    ObjectNode choice = chunk.putArray("choices").addObject();
    choice.put("index", 0).put("text", text).putNull("logprobs");
    choice.put("finish_reason", finishReason).putNull("stop_reason");
    ArrayNode ids = choice.putArray("token_ids");
    for (int tokenId : tokenIds) {
      ids.add(tokenId);
    }
    return chunk;
  }

  /** The usage chunk that ends a stream asked for {@code include_usage}. */
  public static ObjectNode usageChunk(
      String id, long created, String model, int promptTokens, int completionTokens) {
    ObjectNode chunk = head(id, created, model);
    chunk.putArray("choices");
    chunk
        .putObject("usage")
        .put("prompt_tokens", promptTokens)
        .put("total_tokens", promptTokens + completionTokens)
        .put("completion_tokens", completionTokens);
    return chunk;
  }

  private static ObjectNode head(String id, long created, String model) {
    return JSON.objectNode()
        .put("id", id)
        .put("object", "text_completion")
        .put("created", created)
        .put("model", model);
  }

  /** vLLM's name of our finish reason, for the simulated worker. */
  public static String finishName(FinishReason reason) {
    if (reason == null) {
      return null;
    }
    return switch (reason.kind()) {
      case LENGTH -> "length";
      case CANCELLED -> "abort";
      default -> "stop";
    };
  }
}
