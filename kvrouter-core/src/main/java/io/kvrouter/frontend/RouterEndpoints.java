package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.OpenAiRequests;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerStatus;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The router's own endpoints, for operators:
 *
 * <ul>
 *   <li>{@code POST /router/explain} takes an OpenAI chat or completions body and answers where the
 *       KV router would send it and why (per worker: overlap, prefill tokens, decode blocks, cost,
 *       busy), without sending or booking anything;
 *   <li>{@code GET /router/workers} lists each worker's health, requests in flight and, in kv mode,
 *       its predicted KV load and cached blocks.
 * </ul>
 */
final class RouterEndpoints {
  private final ServedModels models;
  private final ErrorResponses errors;
  private final JsonBodies bodies;
  private final CacheNamespaces namespaces;

  /**
   * @param namespaces the cache namespace an explained request is hashed under: its own, as if it
   *     were sent, so explaining cannot look into another tenant's namespace
   */
  RouterEndpoints(
      ServedModels models, ErrorResponses errors, JsonBodies bodies, CacheNamespaces namespaces) {
    this.models = models;
    this.errors = errors;
    this.bodies = bodies;
    this.namespaces = namespaces;
  }

  void explain(RoutingContext ctx) {
    bodies
        .read(
            ctx.vertx().getOrCreateContext(),
            GenerationHandler.body(ctx),
            body ->
                GenerationHandler.parseRequest(
                    models,
                    body.containsKey("messages")
                        ? OpenAiRequests::chat
                        : OpenAiRequests::completion,
                    body))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                ErrorResponses.send(ctx.response(), errors.of(ar.cause(), RequestIds.of(ctx)));
              } else {
                explain(ctx, ar.result());
              }
            });
  }

  private void explain(RoutingContext ctx, GenerationHandler.Parsed parsed) {
    io.kvrouter.frontend.openai.OpenAiRequest request;
    try {
      request = namespaces.resolve(ctx, parsed.request());
    } catch (RuntimeException e) {
      ErrorResponses.send(ctx.response(), errors.of(e, RequestIds.of(ctx)));
      return;
    }
    parsed
        .model()
        .preprocessor()
        .explain(request.toGeneration(RequestIds.of(ctx).internal()))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                ErrorResponses.send(ctx.response(), errors.of(ar.cause(), RequestIds.of(ctx)));
              } else if (ar.result().isEmpty()) {
                ErrorResponses.send(
                    ctx.response(),
                    new ErrorResponses.ApiError(
                        409,
                        "invalid_request_error",
                        "explain_unavailable",
                        "POST /router/explain shows the KV router's costs; this router runs"
                            + " without them (start it with --router-mode kv or approx)",
                        null));
              } else {
                json(ctx, explanation(ar.result().get()));
              }
            });
  }

  private static JsonObject explanation(RouteExplanation explanation) {
    JsonArray workers = new JsonArray();
    for (WorkerCost cost : explanation.workers()) {
      workers.add(
          new JsonObject()
              .put("worker_id", cost.worker().workerId())
              .put("dp_rank", cost.worker().dpRank())
              .put("overlap_blocks", cost.overlapBlocks())
              .put("cached_blocks", cost.cachedBlocks())
              .put("new_prefill_tokens", cost.newPrefillTokens())
              .put("prefill_tokens", cost.prefillTokens())
              .put("decode_blocks", cost.decodeBlocks())
              .put("cost", cost.cost())
              .put("busy", cost.busy())
              .put("chosen", explanation.chosen().map(cost.worker()::equals).orElse(false)));
    }
    String outcome =
        explanation.chosen().isPresent()
            ? "chosen"
            : explanation.workers().isEmpty() ? "no_workers" : "all_busy";
    return new JsonObject()
        .put("input_tokens", explanation.inputTokens())
        .put("block_size", explanation.blockSize())
        .put("request_blocks", explanation.requestBlocks())
        .put("outcome", outcome)
        .put(
            "chosen",
            explanation
                .chosen()
                .map(
                    rank ->
                        new JsonObject()
                            .put("worker_id", rank.workerId())
                            .put("dp_rank", rank.dpRank()))
                .orElse(null))
        .put("workers", workers);
  }

  void workers(RoutingContext ctx) {
    JsonArray workers = new JsonArray();
    for (ServedModels.ServedModel model : models.all()) {
      for (WorkerStatus status : model.preprocessor().workers()) {
        workers.add(worker(model.name(), status));
      }
    }
    JsonArray unavailable = new JsonArray();
    models
        .unavailableModels()
        .forEach(
            (name, reason) ->
                unavailable.add(new JsonObject().put("model", name).put("reason", reason)));
    json(ctx, new JsonObject().put("workers", workers).put("unavailable_models", unavailable));
  }

  /** One worker of {@code model} as {@code /router/workers} lists it. */
  private static JsonObject worker(String model, WorkerStatus status) {
    JsonObject worker =
        new JsonObject()
            .put("model", model)
            .put("worker_id", status.id())
            .put("address", status.address())
            .put("healthy", status.healthy())
            .put("active_requests", status.activeRequests());
    status
        .kv()
        .ifPresent(
            kv ->
                worker
                    .put("active_blocks", kv.activeBlocks())
                    .put("active_prefill_tokens", kv.activePrefillTokens())
                    .put("cached_blocks", kv.cachedBlocks())
                    .put("total_kv_blocks", kv.totalKvBlocks()));
    status
        .kvEvents()
        .ifPresent(
            feed ->
                worker.put(
                    "kv_events",
                    new JsonObject()
                        .put("state", feed.state())
                        .put("last_seq", feed.lastSeq())
                        .put("batches", feed.batches())
                        .put("gaps", feed.gaps())
                        .put("resets", feed.resets())
                        .put("incomplete_replays", feed.incompleteReplays())
                        .put("ms_since_last_batch", feed.millisSinceLastBatch())));
    status
        .reportedLoad()
        .ifPresent(
            load ->
                worker.put(
                    "reported_load",
                    new JsonObject()
                        .put("kv_used_blocks", known(load.report().kvUsedBlocks()))
                        .put("kv_total_blocks", known(load.report().kvTotalBlocks()))
                        .put("active_decode_blocks", known(load.report().activeDecodeBlocks()))
                        .put("active_prefill_tokens", known(load.report().activePrefillTokens()))
                        .put("requests_waiting", known(load.report().requestsWaiting()))
                        .put("requests_running", known(load.report().requestsRunning()))
                        .put("ms_since_report", load.ageMillis())));
    return worker;
  }

  /** A reported count, or null when the report did not carry it. */
  private static Long known(long count) {
    return count < 0 ? null : count;
  }

  private static void json(RoutingContext ctx, JsonObject body) {
    ctx.response().putHeader("content-type", "application/json").end(body.toBuffer());
  }
}
