package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.OpenAiRequest;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.ModelNotFoundException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;

/**
 * Serves one OpenAI generation endpoint: parses and validates the body, starts one generation per
 * prompt (a completions request may hold several; each is a choice) and hands them to a streaming
 * (SSE) or unary responder. If any prompt is refused the request fails as a whole and the
 * generations already started are stopped.
 */
final class GenerationHandler implements Handler<RoutingContext> {
  private final Preprocessor preprocessor;
  private final FrontendMetrics metrics;
  private final String endpoint;
  private final ResponseFormat format;
  private final Function<JsonObject, OpenAiRequest> parser;
  private final ErrorResponses errors;
  private final InFlightResponses inFlight;

  GenerationHandler(
      Preprocessor preprocessor,
      ErrorResponses errors,
      InFlightResponses inFlight,
      FrontendMetrics metrics,
      String endpoint,
      ResponseFormat format,
      Function<JsonObject, OpenAiRequest> parser) {
    this.preprocessor = preprocessor;
    this.errors = errors;
    this.inFlight = inFlight;
    this.metrics = metrics;
    this.endpoint = endpoint;
    this.format = format;
    this.parser = parser;
  }

  @Override
  public void handle(RoutingContext ctx) {
    JsonObject body;
    try {
      body = parseBody(ctx);
    } catch (IllegalArgumentException e) {
      ErrorResponses.send(ctx.response(), ErrorResponses.invalidBody(e.getMessage()));
      return;
    }
    OpenAiRequest request;
    try {
      request = parseRequest(preprocessor, parser, body);
    } catch (RuntimeException e) {
      ErrorResponses.send(ctx.response(), errors.of(e));
      return;
    }
    String requestId = UUID.randomUUID().toString();
    FrontendMetrics.RequestTracker tracker = metrics.start(endpoint, request.stream());
    ResponseFormat.Header header =
        format.header(requestId, System.currentTimeMillis() / 1000, request.model());
    List<Future<Generation>> started = new ArrayList<>();
    for (GenerationRequest generation : request.toGenerations(requestId)) {
      try {
        started.add(preprocessor.generate(generation));
      } catch (RuntimeException e) {
        started.add(Future.failedFuture(e));
      }
    }
    Future.join(started)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                started.stream().filter(Future::succeeded).forEach(f -> discard(f.result()));
                tracker.finish(false);
                ErrorResponses.send(ctx.response(), errors.of(firstFailure(started)));
                return;
              }
              List<Generation> choices = started.stream().map(Future::result).toList();
              tracker.promptTokens(choices.stream().mapToInt(Generation::promptTokens).sum());
              Responder responder =
                  request.stream()
                      ? new SseResponder(
                          ctx.response(),
                          format,
                          header,
                          request,
                          choices,
                          tracker,
                          errors,
                          inFlight)
                      : new UnaryResponder(
                          ctx.response(), format, header, choices, tracker, errors, inFlight);
              responder.start();
            });
  }

  private static Throwable firstFailure(List<Future<Generation>> started) {
    return started.stream().filter(Future::failed).findFirst().orElseThrow().cause();
  }

  /** Stops a generation whose request failed as a whole (another prompt of it was refused). */
  private static void discard(Generation generation) {
    generation.subscribe(
        new Generation.Listener() {
          @Override
          public void onDelta(Delta delta, int newTokens) {}

          @Override
          public void onFinish(FinishReason reason, int completionTokens) {}

          @Override
          public void onError(Throwable error) {}
        });
    generation.cancel();
  }

  /** Validates {@code body} with {@code parser} and checks that it names the served model. */
  static OpenAiRequest parseRequest(
      Preprocessor preprocessor, Function<JsonObject, OpenAiRequest> parser, JsonObject body) {
    OpenAiRequest request = parser.apply(body);
    if (!request.model().equals(preprocessor.modelName())) {
      throw new ModelNotFoundException(request.model());
    }
    return request;
  }

  /** The request body as a JSON object; {@link IllegalArgumentException} when it is not one. */
  static JsonObject parseBody(RoutingContext ctx) {
    Buffer buffer = ctx.body() == null ? null : ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      throw new IllegalArgumentException("The request body is empty; expected a JSON object");
    }
    Object json;
    try {
      json = buffer.toJsonValue();
    } catch (DecodeException e) {
      throw new IllegalArgumentException("The request body is not valid JSON: " + e.getMessage());
    }
    if (!(json instanceof JsonObject object)) {
      throw new IllegalArgumentException("The request body must be a JSON object");
    }
    return object;
  }
}
