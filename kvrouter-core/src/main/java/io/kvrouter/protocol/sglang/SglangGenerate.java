package io.kvrouter.protocol.sglang;

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
import java.util.List;
import java.util.Optional;

/**
 * SGLang's {@code POST /generate} with {@code input_ids}, both ways (docs/notes/plain-engines.md
 * §2; SGLang {@code python/sglang/srt/managers/io_struct.py} @001067ff, {@code
 * sampling/sampling_params.py} @00c17caf): the router's request as the body an SGLang server takes,
 * and its streamed outputs as {@link EngineOutput}s; the simulated worker reads and writes the
 * same.
 *
 * <pre>
 * request:  {"rid": "…", "input_ids": [ids], "stream": true,
 *            "sampling_params": {"max_new_tokens": N, "stop": […], "temperature": …, …}}
 * stream:   data: {"text": "…", "output_ids": [ids so far],
 *                  "meta_info": {"id": "…", "finish_reason": null, "prompt_tokens": P,
 *                                "completion_tokens": C}}
 *           data: {…, "meta_info": {…, "finish_reason": {"type": "length", "length": N}}}
 *           data: [DONE]
 * </pre>
 *
 * By default SGLang streams {@code output_ids} cumulatively (every chunk repeats all ids so far);
 * with {@code --incremental-streaming-output} only the new ones. A {@link Reader} tells the two
 * apart by {@code meta_info.completion_tokens}, always the running total: ids as many as the total
 * are the whole output so far, fewer are the new ones.
 *
 * <p>A request in a cache namespace carries it as {@code cache_salt}, untagged: SGLang keeps it
 * apart from its own {@code extra_key} and namespaces its radix cache by it (sgl-project/sglang PR
 * #30827, which also seeds salted KV events' hashes with it; SGLang releases before it do not know
 * the field, and may ignore it).
 */
public final class SglangGenerate {
  /** The route. */
  public static final String PATH = "/generate";

  /** The route that aborts a running request by its {@code rid}. */
  public static final String ABORT_PATH = "/abort_request";

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private SglangGenerate() {}

  /** The streamed request body for {@code request}, under the router's request id. */
  public static ObjectNode requestBody(PreprocessedRequest request, String requestId) {
    ObjectNode body = JSON.objectNode().put("rid", requestId);
    ArrayNode ids = body.putArray("input_ids");
    for (int id : request.tokenIds()) {
      ids.add(id);
    }
    body.put("stream", true);
    ObjectNode sampling = body.putObject("sampling_params");
    StopConditions stop = request.stopConditions();
    // SGLang's default is 128 new tokens: say how many whenever the router knows
    putIfSet(sampling, "max_new_tokens", stop.maxTokens());
    if (stop.stop() != null && !stop.stop().isEmpty()) {
      ArrayNode stops = sampling.putArray("stop");
      stop.stop().forEach(stops::add);
    }
    if (stop.stopTokenIds() != null && !stop.stopTokenIds().isEmpty()) {
      ArrayNode stopIds = sampling.putArray("stop_token_ids");
      stop.stopTokenIds().forEach(stopIds::add);
    }
    putIfSet(sampling, "min_new_tokens", stop.minTokens());
    putIfSet(sampling, "ignore_eos", stop.ignoreEos());
    SamplingOptions options = request.samplingOptions();
    putIfSet(sampling, "n", options.n());
    putIfSet(sampling, "sampling_seed", options.seed());
    putIfSet(sampling, "temperature", options.temperature());
    putIfSet(sampling, "top_p", options.topP());
    if (options.topK() != null) {
      sampling.put("top_k", options.topK() == 0 ? -1 : options.topK()); // 0 is "off" in OpenAI's
    }
    putIfSet(sampling, "min_p", options.minP());
    putIfSet(sampling, "presence_penalty", options.presencePenalty());
    putIfSet(sampling, "frequency_penalty", options.frequencyPenalty());
    putIfSet(sampling, "repetition_penalty", options.repetitionPenalty());
    OutputOptions output = request.outputOptions();
    putIfSet(sampling, "skip_special_tokens", output.skipSpecialTokens());
    if (output.logprobs() != null) {
      body.put("return_logprob", true).put("top_logprobs_num", output.logprobs());
    }
    request.dpRank().ifPresent(rank -> body.put("routed_dp_rank", rank));
    request.cacheSalt().ifPresent(ns -> body.put("cache_salt", ns));
    return body;
  }

  /** The body of {@code POST /abort_request} for the request {@code requestId}. */
  public static ObjectNode abortBody(String requestId) {
    return JSON.objectNode().put("rid", requestId);
  }

  /** Reads one request's stream: keeps how many output ids it has handed on. */
  public static final class Reader {
    private int seen;

    /**
     * One streamed chunk's new output, or empty when it brings no new id and no finish.
     *
     * @throws EngineErrorEvent for an error event
     * @throws IllegalArgumentException for a chunk that is not a generate output
     */
    public Optional<EngineOutput> read(JsonNode chunk) {
      JsonNode error = chunk.get("error");
      if (error != null && !error.isNull()) {
        throw new EngineErrorEvent(
            error.hasNonNull("message") ? error.get("message").asText() : error.toString());
      }
      JsonNode meta = chunk.get("meta_info");
      JsonNode ids = chunk.has("output_ids") ? chunk.get("output_ids") : chunk.get("token_ids");
      if (meta == null || !meta.isObject() || ids == null || !ids.isArray()) {
        throw new IllegalArgumentException("a generate chunk without output_ids and meta_info");
      }
      int total = meta.path("completion_tokens").asInt(seen + ids.size());
      int from = ids.size() == total ? seen : 0; // cumulative: skip what was handed on
      int[] fresh = new int[Math.max(0, ids.size() - from)];
      for (int i = 0; i < fresh.length; i++) {
        fresh[i] = ids.get(from + i).intValue();
      }
      FinishReason finish = finishReason(meta.get("finish_reason"));
      EngineOutput output = new EngineOutput(fresh, null, finish, null);
      if (meta.has("output_token_logprobs")) {
        output = withLogprobs(output, meta, total, seen);
      }
      seen = total;
      return fresh.length == 0 && finish == null ? Optional.empty() : Optional.of(output);
    }
  }

  /**
   * SGLang's finish: {@code {"type": "stop", "matched": id | "string"}}, {@code {"type":
   * "length"}}, {@code {"type": "abort"}}; a token matched (the end of sequence among them) is the
   * end of sequence, a string a stop string.
   */
  static FinishReason finishReason(JsonNode finish) {
    if (finish == null || finish.isNull()) {
      return null;
    }
    String type = finish.isObject() ? finish.path("type").asText() : finish.asText();
    return switch (type) {
      case "stop" -> finish.path("matched").isTextual() ? FinishReason.STOP : FinishReason.EOS;
      case "length" -> FinishReason.LENGTH;
      case "abort" -> FinishReason.CANCELLED;
      default -> throw new IllegalArgumentException("unknown finish_reason type '" + type + "'");
    };
  }

  /**
   * The logprobs of the new positions, {@code [logprob, token_id, text]} triples in {@code
   * output_token_logprobs} (one per position) and {@code output_top_logprobs} (a list per
   * position): a list as long as the running total is cumulative, and read from {@code from}, the
   * positions already handed on; a shorter one holds only the new positions.
   */
  private static EngineOutput withLogprobs(
      EngineOutput output, JsonNode meta, int total, int from) {
    JsonNode chosen = meta.get("output_token_logprobs");
    JsonNode tops = meta.get("output_top_logprobs");
    int first = chosen.size() == total ? from : 0;
    List<Double> values = new ArrayList<>();
    for (int i = first; i < chosen.size(); i++) {
      values.add(chosen.get(i).get(0).asDouble());
    }
    List<List<EngineOutput.TopLogprob>> alternatives = null;
    if (tops != null && tops.isArray()) {
      alternatives = new ArrayList<>();
      int firstTop = tops.size() == total ? from : 0;
      for (int i = firstTop; i < tops.size(); i++) {
        List<EngineOutput.TopLogprob> ranked = new ArrayList<>();
        int rank = 1;
        for (JsonNode triple : tops.get(i)) {
          ranked.add(
              new EngineOutput.TopLogprob(
                  rank++, triple.get(1).intValue(), null, triple.get(0).asDouble()));
        }
        alternatives.add(ranked);
      }
    }
    return output.withLogprobs(values, alternatives);
  }

  /**
   * The request a {@code /generate} body asks for, as a simulated SGLang reads it: {@code
   * input_ids} as one prompt, {@code max_new_tokens} defaulting to SGLang's 128.
   *
   * @throws IllegalArgumentException naming what is wrong with the body
   */
  public static PreprocessedRequest readRequest(JsonNode body, List<Integer> eosTokenIds) {
    JsonNode ids = body.get("input_ids");
    if (ids == null || !ids.isArray() || ids.isEmpty()) {
      throw new IllegalArgumentException("input_ids must be a non-empty list of token ids");
    }
    int[] tokens = new int[ids.size()];
    for (int i = 0; i < tokens.length; i++) {
      if (!ids.get(i).isIntegralNumber() || ids.get(i).intValue() < 0) {
        throw new IllegalArgumentException("input_ids[" + i + "] is not a token id");
      }
      tokens[i] = ids.get(i).intValue();
    }
    JsonNode p = body.path("sampling_params");
    List<String> stops = new ArrayList<>();
    if (p.path("stop").isTextual()) {
      stops.add(p.get("stop").asText());
    } else if (p.path("stop").isArray()) {
      p.get("stop").forEach(s -> stops.add(s.asText()));
    }
    List<Integer> stopIds = new ArrayList<>();
    p.path("stop_token_ids").forEach(id -> stopIds.add(id.intValue()));
    PreprocessedRequest request =
        new PreprocessedRequest(
            "",
            tokens,
            new StopConditions(
                p.hasNonNull("max_new_tokens") ? p.get("max_new_tokens").asInt() : 128,
                stops.isEmpty() ? null : stops,
                stopIds.isEmpty() ? null : stopIds,
                integer(p, "min_new_tokens"),
                bool(p, "ignore_eos")),
            new SamplingOptions(
                integer(p, "n"),
                longValue(p, "sampling_seed"),
                decimal(p, "temperature"),
                decimal(p, "top_p"),
                integer(p, "top_k"),
                decimal(p, "min_p"),
                decimal(p, "presence_penalty"),
                decimal(p, "frequency_penalty"),
                decimal(p, "repetition_penalty")),
            new OutputOptions(
                body.path("return_logprob").asBoolean(false)
                    ? body.path("top_logprobs_num").asInt(0)
                    : null,
                bool(p, "skip_special_tokens")),
            eosTokenIds,
            List.of());
    JsonNode salt = body.get("cache_salt");
    if (salt != null && !salt.isNull()) {
      if (!salt.isTextual() || salt.textValue().isEmpty()) {
        throw new IllegalArgumentException("cache_salt must be a non-empty string");
      }
      request = request.withCacheSalt(salt.textValue());
    }
    return body.hasNonNull("routed_dp_rank")
        ? request.withDpRank(body.get("routed_dp_rank").asInt())
        : request;
  }

  /**
   * One streamed output as SGLang writes it by default (cumulative), for the simulated worker.
   *
   * @param outputIds every id generated so far
   * @param finish our finish reason, or null while running
   */
  public static ObjectNode chunk(
      String requestId, String text, int[] outputIds, FinishReason finish, int promptTokens) {
    ObjectNode chunk = JSON.objectNode().put("text", text);
    ArrayNode ids = chunk.putArray("output_ids");
    for (int id : outputIds) {
      ids.add(id);
    }
    ObjectNode meta = chunk.putObject("meta_info").put("id", requestId);
    if (finish == null) {
      meta.putNull("finish_reason");
    } else {
      ObjectNode reason = meta.putObject("finish_reason");
      switch (finish.kind()) {
        case LENGTH -> reason.put("type", "length").put("length", outputIds.length);
        case CANCELLED -> reason.put("type", "abort").put("message", "aborted");
        default -> {
          reason.put("type", "stop");
          if (outputIds.length > 0) {
            reason.put("matched", outputIds[outputIds.length - 1]);
          } else {
            reason.putNull("matched");
          }
        }
      }
    }
    meta.put("prompt_tokens", promptTokens)
        .put("completion_tokens", outputIds.length)
        .put("cached_tokens", 0);
    return chunk;
  }
}
