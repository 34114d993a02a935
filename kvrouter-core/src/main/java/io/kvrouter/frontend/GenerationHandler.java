package io.kvrouter.frontend;

import io.kvrouter.frontend.openai.OpenAiRequest;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.Preprocessor;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.RateLimitedException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one OpenAI generation endpoint: parses and validates the body (a large one on a worker
 * thread: {@link JsonBodies}), starts one generation per prompt (a completions request may hold
 * several; each is a choice) and hands them to a streaming (SSE) or unary responder. If any prompt
 * is refused the request fails as a whole and the generations already started are stopped.
 */
final class GenerationHandler implements Handler<RoutingContext> {
  private static final Logger log = LoggerFactory.getLogger(GenerationHandler.class);

  private final ServedModels models;
  private final String endpoint;
  private final ResponseFormat format;
  private final Function<JsonObject, OpenAiRequest> parser;
  private final ErrorResponses errors;
  private final InFlightResponses inFlight;
  private final JsonBodies bodies;
  private final RateLimiter limiter;
  private final CacheNamespaces namespaces;

  GenerationHandler(
      ServedModels models,
      ErrorResponses errors,
      InFlightResponses inFlight,
      JsonBodies bodies,
      RateLimiter limiter,
      CacheNamespaces namespaces,
      String endpoint,
      ResponseFormat format,
      Function<JsonObject, OpenAiRequest> parser) {
    this.models = models;
    this.errors = errors;
    this.inFlight = inFlight;
    this.bodies = bodies;
    this.limiter = limiter;
    this.namespaces = namespaces;
    this.endpoint = endpoint;
    this.format = format;
    this.parser = parser;
  }

  @Override
  public void handle(RoutingContext ctx) {
    bodies
        .read(
            ctx.vertx().getOrCreateContext(), body(ctx), json -> parseRequest(models, parser, json))
        .onComplete(
            ar -> {
              if (ar.failed()) {
                ErrorResponses.send(ctx.response(), errors.of(ar.cause(), RequestIds.of(ctx)));
              } else {
                serve(ctx, ar.result());
              }
            });
  }

  /**
   * Starts the request's generations once its key's rate limits admit it ({@link RateLimiter}): the
   * request holds its place in flight until its response ends or its connection closes, and each
   * prompt books its tokens once tokenized, before it is routed.
   */
  private void serve(RoutingContext ctx, Parsed parsed) {
    if (ctx.response().closed()) {
      // the client left while its body was parsed: nothing to admit or answer, and an end handler
      // added now would never be called
      return;
    }
    // the cache namespace first: a request refused for its salt takes nothing from its limits
    OpenAiRequest request;
    try {
      request = namespaces.resolve(ctx, parsed.request());
    } catch (RuntimeException e) {
      ErrorResponses.send(ctx.response(), errors.of(e, RequestIds.of(ctx)));
      return;
    }
    RateLimitTicket ticket;
    try {
      ticket = limiter.admit(ApiKeyAuth.keyName(ctx));
    } catch (RateLimitedException e) {
      ErrorResponses.send(ctx.response(), errors.of(e, RequestIds.of(ctx)));
      return;
    }
    // the response was open above, on this same event loop, so its end will be heard
    ctx.addEndHandler(v -> ticket.release());
    ticket.prompts(request.prompts().size());
    Preprocessor preprocessor = parsed.model().preprocessor();
    RequestIds.RequestId id = RequestIds.of(ctx);
    String requestId = id.internal();
    log.debug(
        "Request {} started: model {}, {} prompt(s), {}",
        id,
        request.model(),
        request.prompts().size(),
        request.stream() ? "streamed" : "unary");
    FrontendMetrics.RequestTracker tracker =
        parsed.model().metrics().start(endpoint, request.stream());
    ResponseFormat.Header header =
        format.header(requestId, System.currentTimeMillis() / 1000, request.model());
    List<Future<Generation>> started = new ArrayList<>();
    for (GenerationRequest generation : request.toGenerations(requestId, id.client())) {
      try {
        started.add(preprocessor.generate(generation, ticket));
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
                ErrorResponses.send(ctx.response(), errors.of(firstFailure(started), id));
                return;
              }
              List<Generation> choices = started.stream().map(Future::result).toList();
              tracker.promptTokens(choices.stream().mapToInt(Generation::promptTokens).sum());
              ticket.headers().forEach(ctx.response()::putHeader);
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
                          inFlight,
                          id)
                      : new UnaryResponder(
                          ctx.response(), format, header, choices, tracker, errors, inFlight, id);
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

  /** A valid request and the served model it names. */
  record Parsed(OpenAiRequest request, ServedModels.ServedModel model) {}

  /**
   * Validates {@code body} with {@code parser} and finds the model it names.
   *
   * @throws io.kvrouter.protocol.ModelNotFoundException if no model of that name is served
   */
  static Parsed parseRequest(
      ServedModels models, Function<JsonObject, OpenAiRequest> parser, JsonObject body) {
    OpenAiRequest request = parser.apply(body);
    return new Parsed(request, models.find(request.model()));
  }

  /** The request's body, or null when it has none. */
  static Buffer body(RoutingContext ctx) {
    return ctx.body() == null ? null : ctx.body().buffer();
  }
}
