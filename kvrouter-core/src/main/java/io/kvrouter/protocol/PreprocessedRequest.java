package io.kvrouter.protocol;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.util.List;
import java.util.Objects;

/**
 * A tokenized request as the frontend sends it to a worker: Dynamo's {@code PreprocessedRequest}
 * (lib/llm/src/protocols/common/preprocessor.rs). Field names are the wire names. It is written
 * exactly as Dynamo writes it ({@link PreprocessedRequestSerializer}, docs/interop.md §10.4): the
 * fields Dynamo always writes are present, as {@code null} when unset, even those kvrouter does not
 * carry; the rest only when set. Reading accepts nulls and ignores fields kvrouter does not carry.
 *
 * <p>{@code clientRequestId} is not part of the body: it is the client's {@code X-Request-Id},
 * which Dynamo's frontend keeps beside the request in its context rather than in it, and which each
 * request plane sends in its own headers ({@code x-request-id}). It is left out of {@link #equals}
 * too: two requests that differ only by it ask the worker for the same thing.
 */
@JsonSerialize(using = PreprocessedRequestSerializer.Request.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record PreprocessedRequest(
    @JsonProperty("model") String model,
    @JsonProperty("token_ids") int[] tokenIds,
    @JsonProperty("stop_conditions") StopConditions stopConditions,
    @JsonProperty("sampling_options") SamplingOptions samplingOptions,
    @JsonProperty("output_options") OutputOptions outputOptions,
    @JsonProperty("eos_token_ids") List<Integer> eosTokenIds,
    @JsonProperty("annotations") List<String> annotations,
    @JsonProperty("routing") Routing routing,
    @JsonIgnore String clientRequestId) {

  public PreprocessedRequest {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(tokenIds, "tokenIds");
    stopConditions = stopConditions == null ? StopConditions.NONE : stopConditions;
    samplingOptions = samplingOptions == null ? SamplingOptions.DEFAULT : samplingOptions;
    outputOptions = outputOptions == null ? OutputOptions.DEFAULT : outputOptions;
    eosTokenIds = eosTokenIds == null ? List.of() : List.copyOf(eosTokenIds);
    annotations = annotations == null ? List.of() : List.copyOf(annotations);
  }

  /** A request without a client's id. */
  public PreprocessedRequest(
      String model,
      int[] tokenIds,
      StopConditions stopConditions,
      SamplingOptions samplingOptions,
      OutputOptions outputOptions,
      List<Integer> eosTokenIds,
      List<String> annotations,
      Routing routing) {
    this(
        model,
        tokenIds,
        stopConditions,
        samplingOptions,
        outputOptions,
        eosTokenIds,
        annotations,
        routing,
        null);
  }

  /** A request without routing hints. */
  public PreprocessedRequest(
      String model,
      int[] tokenIds,
      StopConditions stopConditions,
      SamplingOptions samplingOptions,
      OutputOptions outputOptions,
      List<Integer> eosTokenIds,
      List<String> annotations) {
    this(
        model,
        tokenIds,
        stopConditions,
        samplingOptions,
        outputOptions,
        eosTokenIds,
        annotations,
        null);
  }

  /**
   * What the router decided, for the worker, as Dynamo's {@code RoutingHints} (docs/interop.md
   * §10.4; every field left out when unset): {@code dp_rank} is the data-parallel rank that must
   * serve the request (absent: the worker chooses); {@code cache_salt} is the request's cache
   * namespace (Rust field {@code cache_namespace}, written as {@code cache_salt}): the engine
   * caches and reuses the request's KV blocks only among requests of the same namespace, and its KV
   * events hash them under it ({@code protocol.hash.BlockHasher#of(int, String, String)}). Dynamo's
   * vLLM handler passes it to vLLM as {@code cache_salt} tagged {@value
   * io.kvrouter.protocol.vllm.VllmCacheSalt#TAG}.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Routing(
      @JsonProperty("dp_rank") Integer dpRank, @JsonProperty("cache_salt") String cacheSalt) {

    public Routing {
      cacheSalt = cacheSalt == null || cacheSalt.isEmpty() ? null : cacheSalt;
    }

    /** Routing to data-parallel rank {@code dpRank} only. */
    public Routing(Integer dpRank) {
      this(dpRank, null);
    }

    boolean isEmpty() {
      return dpRank == null && cacheSalt == null;
    }
  }

  /** This request for data-parallel rank {@code dpRank} of the worker (its cache salt kept). */
  public PreprocessedRequest withDpRank(int dpRank) {
    return withRouting(new Routing(dpRank, cacheSalt().orElse(null)));
  }

  /**
   * This request in cache namespace {@code cacheSalt} ({@code null} or empty: none), its
   * data-parallel rank kept.
   */
  public PreprocessedRequest withCacheSalt(String cacheSalt) {
    Routing next = new Routing(routing == null ? null : routing.dpRank(), cacheSalt);
    return withRouting(next.isEmpty() ? null : next);
  }

  private PreprocessedRequest withRouting(Routing next) {
    return new PreprocessedRequest(
        model,
        tokenIds,
        stopConditions,
        samplingOptions,
        outputOptions,
        eosTokenIds,
        annotations,
        next,
        clientRequestId);
  }

  /** The request's cache namespace ({@code routing.cache_salt}), if it has one. */
  public java.util.Optional<String> cacheSalt() {
    return routing == null
        ? java.util.Optional.empty()
        : java.util.Optional.ofNullable(routing.cacheSalt());
  }

  /** The data-parallel rank the router chose, if it chose one. */
  public java.util.OptionalInt dpRank() {
    return routing == null || routing.dpRank() == null
        ? java.util.OptionalInt.empty()
        : java.util.OptionalInt.of(routing.dpRank());
  }

  /** When to stop generating; every field is optional. */
  @JsonSerialize(using = PreprocessedRequestSerializer.Stop.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record StopConditions(
      @JsonProperty("max_tokens") Integer maxTokens,
      @JsonProperty("stop") List<String> stop,
      @JsonProperty("stop_token_ids") List<Integer> stopTokenIds,
      @JsonProperty("min_tokens") Integer minTokens,
      @JsonProperty("ignore_eos") Boolean ignoreEos) {
    public static final StopConditions NONE = new StopConditions(null, null, null, null, null);
  }

  /** How to sample; every field is optional and the engine's default applies when absent. */
  @JsonSerialize(using = PreprocessedRequestSerializer.Sampling.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SamplingOptions(
      @JsonProperty("n") Integer n,
      @JsonProperty("seed") Long seed,
      @JsonProperty("temperature") Double temperature,
      @JsonProperty("top_p") Double topP,
      @JsonProperty("top_k") Integer topK,
      @JsonProperty("min_p") Double minP,
      @JsonProperty("presence_penalty") Double presencePenalty,
      @JsonProperty("frequency_penalty") Double frequencyPenalty,
      @JsonProperty("repetition_penalty") Double repetitionPenalty) {
    public static final SamplingOptions DEFAULT =
        new SamplingOptions(null, null, null, null, null, null, null, null, null);
  }

  /** What the engine should return besides token ids. */
  @JsonSerialize(using = PreprocessedRequestSerializer.Output.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record OutputOptions(
      @JsonProperty("logprobs") Integer logprobs,
      @JsonProperty("skip_special_tokens") Boolean skipSpecialTokens) {
    public static final OutputOptions DEFAULT = new OutputOptions(null, null);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PreprocessedRequest r
        && model.equals(r.model)
        && java.util.Arrays.equals(tokenIds, r.tokenIds)
        && stopConditions.equals(r.stopConditions)
        && samplingOptions.equals(r.samplingOptions)
        && outputOptions.equals(r.outputOptions)
        && eosTokenIds.equals(r.eosTokenIds)
        && annotations.equals(r.annotations)
        && Objects.equals(routing, r.routing);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        model,
        java.util.Arrays.hashCode(tokenIds),
        stopConditions,
        samplingOptions,
        outputOptions,
        eosTokenIds,
        annotations,
        routing);
  }

  @Override
  public String toString() {
    return "PreprocessedRequest[model="
        + model
        + ", tokens="
        + tokenIds.length
        + ", stop="
        + stopConditions
        + ", sampling="
        + samplingOptions
        + "]";
  }
}
