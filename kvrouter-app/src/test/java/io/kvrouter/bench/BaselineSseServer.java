package io.kvrouter.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/**
 * The floor an SSE frontend can reach on this machine: a bare Vert.x server (one event loop per
 * core) that reads the request body and answers every POST with 32 chat-completion chunks of the
 * router's shape and {@code data: [DONE]}, without templates, tokenizers, routing or workers.
 * Benchmarks run it beside the router so the router's figures read as a ratio to this floor.
 *
 * <pre>java -cp ... io.kvrouter.bench.BaselineSseServer PORT</pre>
 */
public final class BaselineSseServer extends VerticleBase {
  private static final Buffer DONE = Buffer.buffer("data: [DONE]\n\n");
  private final int port;

  private BaselineSseServer(int port) {
    this.port = port;
  }

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    Vertx vertx = Vertx.vertx();
    vertx
        .deployVerticle(
            () -> new BaselineSseServer(port),
            new DeploymentOptions().setInstances(Runtime.getRuntime().availableProcessors()))
        .onSuccess(id -> System.out.println("baseline SSE server on " + port))
        .onFailure(
            e -> {
              e.printStackTrace();
              System.exit(1);
            });
  }

  @Override
  public Future<?> start() {
    return vertx
        .createHttpServer()
        .requestHandler(
            request ->
                request
                    .body()
                    .onSuccess(
                        body -> {
                          JsonObject parsed = body.toJsonObject();
                          stream(
                              request.response(),
                              parsed.getString("model"),
                              parsed.getInteger("max_tokens", 32));
                        }))
        .listen(port, "127.0.0.1");
  }

  private static void stream(HttpServerResponse response, String model, int tokens) {
    response.setChunked(true).putHeader("content-type", "text/event-stream");
    for (int i = 0; i < tokens; i++) {
      JsonObject chunk =
          new JsonObject()
              .put("id", "chatcmpl-baseline")
              .put("object", "chat.completion.chunk")
              .put("created", 0)
              .put("model", model)
              .put(
                  "choices",
                  new JsonArray()
                      .add(
                          new JsonObject()
                              .put("index", 0)
                              .put("delta", new JsonObject().put("content", "x"))
                              .put("logprobs", null)
                              .put("finish_reason", i == tokens - 1 ? "length" : null)));
      response.write(Buffer.buffer("data: ").appendBuffer(chunk.toBuffer()).appendString("\n\n"));
    }
    response.end(DONE);
  }
}
