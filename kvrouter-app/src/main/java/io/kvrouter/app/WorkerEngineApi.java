package io.kvrouter.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvrouter.config.EngineServerTls;
import io.kvrouter.config.WorkerApi;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.sglang.SglangGenerate;
import io.kvrouter.protocol.sglang.SglangMetrics;
import io.kvrouter.protocol.vllm.VllmCompletions;
import io.kvrouter.protocol.vllm.VllmMetrics;
import io.kvrouter.transport.PemFiles;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.kv.BlockPool;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simulated worker as a {@code vllm serve} looks to a router ({@code router.jar worker --api
 * openai}): token-in {@code POST /v1/completions} ({@link VllmCompletions}: the prompt as token
 * ids, streamed as server-sent events or answered whole), {@code GET /health}, {@code GET
 * /v1/models}, and {@code GET /metrics} with vLLM's load and cache families ({@link VllmMetrics}),
 * one series per data-parallel rank. A client that goes away cancels its request, as vLLM aborts on
 * disconnect. The request's {@code X-data-parallel-rank} header picks the rank, as vLLM's does.
 */
final class WorkerEngineApi {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final InferenceEngine engine;
  private final List<SimulatedEngine> ranks;
  private final ModelAssets assets;
  private final String model;

  /** Whether it serves SGLang's API rather than vLLM's. */
  private final boolean sglang;

  /** How long SGLang lets a request run on after its client went away. */
  static final java.time.Duration SGLANG_DISCONNECT_ABORT = java.time.Duration.ofSeconds(2);

  private final Vertx vertx;
  private final Counter aborts;

  /** SGLang's running requests by {@code rid}, for {@code /abort_request}; on the event loop. */
  private final Map<String, ResponseStream> running = new ConcurrentHashMap<>();

  private WorkerEngineApi(
      InferenceEngine engine,
      List<SimulatedEngine> ranks,
      ModelAssets assets,
      String model,
      boolean sglang,
      Vertx vertx,
      MeterRegistry meters) {
    this.vertx = vertx;
    this.aborts =
        Counter.builder("kvrouter_worker_abort_requests")
            .description("POST /abort_request calls (SGLang's API)")
            .register(meters);
    this.engine = engine;
    this.ranks = ranks;
    this.assets = assets;
    this.model = model;
    this.sglang = sglang;
  }

  /**
   * Serves on {@code host}:{@code port} (0: any) the API of {@code api} ({@code openai}: vLLM's;
   * {@code sglang}: SGLang's), over HTTPS with {@code tls}; the future gives the server.
   */
  static Future<HttpServer> serve(
      Vertx vertx,
      InferenceEngine engine,
      List<SimulatedEngine> ranks,
      ModelAssets assets,
      String model,
      WorkerApi api,
      MeterRegistry meters,
      String host,
      int port,
      Optional<EngineServerTls> tls) {
    WorkerEngineApi server =
        new WorkerEngineApi(engine, ranks, assets, model, api == WorkerApi.SGLANG, vertx, meters);
    HttpServerOptions options = new HttpServerOptions();
    tls.ifPresent(
        t -> {
          options.setSsl(true).setKeyCertOptions(PemFiles.keyCert(t.certFile(), t.keyFile()));
          if (t.certReqs() > 0) {
            options
                .setClientAuth(t.certReqs() == 2 ? ClientAuth.REQUIRED : ClientAuth.REQUEST)
                .setTrustOptions(PemFiles.trust(t.caCerts()));
          }
        });
    return vertx.createHttpServer(options).requestHandler(server::handle).listen(port, host);
  }

  private void handle(HttpServerRequest request) {
    String path = request.path();
    boolean post = request.method().name().equals("POST");
    if (!sglang && path.equals(VllmCompletions.PATH) && post) {
      request.body().onSuccess(body -> complete(request, body));
    } else if (sglang && path.equals(SglangGenerate.PATH) && post) {
      request.body().onSuccess(body -> generate(request, body));
    } else if (sglang && path.equals(SglangGenerate.ABORT_PATH) && post) {
      request.body().onSuccess(body -> abort(request, body));
    } else if (path.equals("/metrics")) {
      request
          .response()
          .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
          .end(metrics());
    } else if (path.equals("/health")) {
      request.response().end();
    } else if (path.equals("/v1/models")) {
      ObjectNode list = JSON.createObjectNode().put("object", "list");
      list.putArray("data").addObject().put("id", model).put("object", "model");
      json(request.response(), 200, list);
    } else {
      error(request.response(), 404, "NotFoundError", "no route " + path);
    }
  }

  /** Each rank's requests and KV cache, as vLLM reports them. */
  private String metrics() {
    List<VllmMetrics.Figures> figures = new ArrayList<>();
    for (int rank = 0; rank < ranks.size(); rank++) {
      BlockPool kv = ranks.get(rank).kvCache();
      figures.add(
          new VllmMetrics.Figures(
              rank,
              ranks.get(rank).activeRequests(),
              0,
              kv.capacity() == 0 ? 0 : (double) kv.activeBlocks() / kv.capacity(),
              kv.capacity()));
    }
    int blockSize = ranks.get(0).kvCache().blockSize();
    return sglang
        ? SglangMetrics.write(model, blockSize, figures)
        : VllmMetrics.write(model, blockSize, figures);
  }

  private void complete(HttpServerRequest request, Buffer raw) {
    PreprocessedRequest generation;
    JsonNode body;
    try {
      body = JSON.readTree(raw.getBytes());
      Optional<Integer> dpRank =
          Optional.ofNullable(request.getHeader("X-data-parallel-rank")).map(Integer::valueOf);
      generation = VllmCompletions.readRequest(body, assets.eosTokenIds(), dpRank);
    } catch (Exception e) {
      error(request.response(), 400, "BadRequestError", String.valueOf(e.getMessage()));
      return;
    }
    if (!generation.model().isEmpty() && !generation.model().equals(model)) {
      error(
          request.response(),
          404,
          "NotFoundError",
          "The model `" + generation.model() + "` does not exist.");
      return;
    }
    String id =
        "cmpl-"
            + Optional.ofNullable(request.getHeader("X-Request-Id"))
                .orElse(UUID.randomUUID().toString());
    boolean stream = body.path("stream").asBoolean(false);
    boolean usage = body.path("stream_options").path("include_usage").asBoolean(false);
    ResponseStream outputs = engine.generate(id, generation);
    new Answer(request.response(), outputs, id, generation.tokenIds().length, stream, usage)
        .start();
  }

  /** SGLang's {@code POST /generate}: the request under its {@code rid}. */
  private void generate(HttpServerRequest request, Buffer raw) {
    PreprocessedRequest generation;
    JsonNode body;
    try {
      body = JSON.readTree(raw.getBytes());
      generation = SglangGenerate.readRequest(body, assets.eosTokenIds());
    } catch (Exception e) {
      error(request.response(), 400, "BadRequestError", String.valueOf(e.getMessage()));
      return;
    }
    String rid = body.path("rid").asText(UUID.randomUUID().toString());
    ResponseStream outputs = engine.generate(rid, generation);
    running.put(rid, outputs);
    new Answer(
            request.response(),
            outputs,
            rid,
            generation.tokenIds().length,
            body.path("stream").asBoolean(false),
            false)
        .start();
  }

  /** SGLang's {@code POST /abort_request}: stops the request {@code rid}. */
  private void abort(HttpServerRequest request, Buffer raw) {
    try {
      ResponseStream outputs = running.remove(JSON.readTree(raw.getBytes()).path("rid").asText());
      aborts.increment();
      if (outputs != null) {
        outputs.cancel();
      }
      request.response().end();
    } catch (Exception e) {
      error(request.response(), 400, "BadRequestError", String.valueOf(e.getMessage()));
    }
  }

  /** One request's answer, written as the engine's outputs arrive. */
  private final class Answer implements ResponseStream.Subscriber {
    private final HttpServerResponse response;
    private final ResponseStream outputs;
    private final String id;
    private final int promptTokens;
    private final boolean stream;
    private final boolean usage;
    private final long created = System.currentTimeMillis() / 1000;
    private final StringBuilder text = new StringBuilder();
    private final java.util.List<Integer> tokens = new java.util.ArrayList<>();
    private String finish;
    private FinishReason reason;

    /** Events written in the current event-loop task, sent as one write when it ends. */
    private Buffer pending;

    /** Every id generated so far. */
    private int[] ids() {
      return tokens.stream().mapToInt(Integer::intValue).toArray();
    }

    Answer(
        HttpServerResponse response,
        ResponseStream outputs,
        String id,
        int promptTokens,
        boolean stream,
        boolean usage) {
      this.response = response;
      this.outputs = outputs;
      this.id = id;
      this.promptTokens = promptTokens;
      this.stream = stream;
      this.usage = usage;
    }

    void start() {
      // the client went away: vLLM aborts at once, SGLang about 2 s later (its abort task)
      response.closeHandler(
          v -> {
            if (sglang) {
              vertx.setTimer(SGLANG_DISCONNECT_ABORT.toMillis(), id -> outputs.cancel());
            } else {
              outputs.cancel();
            }
          });
      if (stream) {
        response.setChunked(true).putHeader("content-type", "text/event-stream");
      }
      outputs.subscribe(this);
    }

    @Override
    public void onOutput(EngineOutput output) {
      String delta = assets.tokenizer().decode(output.tokenIds());
      for (int token : output.tokenIds()) {
        tokens.add(token);
      }
      text.append(delta);
      finish = VllmCompletions.finishName(output.finishReason());
      reason = output.finishReason();
      if (stream && !response.closed()) {
        event(
            sglang
                ? SglangGenerate.chunk(id, text.toString(), ids(), reason, promptTokens)
                : VllmCompletions.chunk(id, created, model, delta, output.tokenIds(), finish));
      }
    }

    @Override
    public void onComplete() {
      if (response.closed()) {
        return;
      }
      running.remove(id);
      if (!stream && sglang) {
        json(response, 200, SglangGenerate.chunk(id, text.toString(), ids(), reason, promptTokens));
        return;
      }
      if (!stream) {
        int[] ids = ids();
        ObjectNode whole = VllmCompletions.chunk(id, created, model, text.toString(), ids, finish);
        whole.set(
            "usage",
            VllmCompletions.usageChunk(id, created, model, promptTokens, ids.length).get("usage"));
        json(response, 200, whole);
        return;
      }
      if (usage) {
        event(VllmCompletions.usageChunk(id, created, model, promptTokens, tokens.size()));
      }
      response.end(takePending().appendString("data: " + VllmCompletions.DONE + "\n\n"));
    }

    @Override
    public void onError(Throwable error) {
      running.remove(id);
      if (response.closed()) {
        return;
      }
      // events still gathered for this task count as sent: the answer is a stream by now
      if (!stream || (!response.headWritten() && pending == null)) {
        error(response, 500, "InternalServerError", String.valueOf(error.getMessage()));
        return;
      }
      ObjectNode event = JSON.createObjectNode();
      event.putObject("error").put("message", String.valueOf(error.getMessage())).put("code", 500);
      event(event);
      response.end(takePending().appendString("data: " + VllmCompletions.DONE + "\n\n"));
    }

    /**
     * Queues one event. Events of one event-loop task (an engine without delay emits a whole answer
     * in one) go out as one write, as the Dynamo-plane worker's frames do.
     */
    private void event(ObjectNode data) {
      io.vertx.core.Context context = Vertx.currentContext();
      if (pending == null) {
        pending = Buffer.buffer(512);
        if (context != null) {
          context.runOnContext(v -> flush());
        }
      }
      pending.appendString("data: " + data + "\n\n");
      if (context == null) {
        flush();
      }
    }

    private void flush() {
      if (pending != null && !response.ended() && !response.closed()) {
        response.write(takePending());
      }
    }

    private Buffer takePending() {
      Buffer events = pending == null ? Buffer.buffer() : pending;
      pending = null;
      return events;
    }
  }

  private static void json(HttpServerResponse response, int status, ObjectNode body) {
    response
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.toString());
  }

  /** vLLM's {@code ErrorResponse}: {@code {"error": {"message", "type", "param", "code"}}}. */
  private static void error(HttpServerResponse response, int status, String type, String message) {
    ObjectNode body = JSON.createObjectNode();
    body.putObject("error")
        .put("message", message)
        .put("type", type)
        .putNull("param")
        .put("code", status);
    json(response, status, body);
  }
}
