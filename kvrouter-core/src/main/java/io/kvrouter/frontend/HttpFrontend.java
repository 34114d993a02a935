package io.kvrouter.frontend;

import io.kvrouter.common.SettledFiles;
import io.kvrouter.config.ApiKeyConfig;
import io.kvrouter.config.HttpConfig;
import io.kvrouter.config.TlsFiles;
import io.kvrouter.frontend.openai.OpenAiRequests;
import io.kvrouter.frontend.openai.ResponseFormat;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.protocol.RouterShuttingDownException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OpenAI-compatible HTTP API: chat completions, completions, models, health, liveness and
 * Prometheus metrics, plus the router's own {@code /router/explain} and {@code /router/workers}
 * ({@link RouterEndpoints}). Every error, including unknown routes, oversized bodies ({@link
 * RouteErrors}) and requests that are not valid HTTP ({@link FrontDoor}), is an OpenAI error body.
 */
public final class HttpFrontend {
  private static final Logger log = LoggerFactory.getLogger(HttpFrontend.class);

  private final ServedModels models;
  private final ApiKeyAuth auth;
  private final Metrics metrics;
  private final HttpConfig config;
  private final ErrorResponses errors;
  private final JsonBodies bodies;
  private final CacheNamespaces namespaces;
  private final RouterEndpoints routerEndpoints;
  private final InFlightResponses inFlight = new InFlightResponses();
  private final ClientFaults faults;
  private final FrontDoor frontDoor;
  private final long createdEpochSeconds = System.currentTimeMillis() / 1000;
  private volatile boolean shuttingDown;

  /**
   * @param models the models served, which may grow while the frontend runs
   * @param metrics where the frontend's own meters are registered and {@code /metrics} is read
   */
  public HttpFrontend(ServedModels models, Metrics metrics, HttpConfig config) {
    this(models, metrics, config, new ApiKeyAuth(ApiKeyConfig.NONE, metrics.registry()));
  }

  /**
   * @param models the models served, which may grow while the frontend runs
   * @param metrics where the frontend's own meters are registered and {@code /metrics} is read
   * @param auth the API keys each request is checked against before anything else
   */
  public HttpFrontend(ServedModels models, Metrics metrics, HttpConfig config, ApiKeyAuth auth) {
    this.auth = auth;
    this.models = models;
    this.metrics = metrics;
    this.config = config;
    this.errors = new ErrorResponses(config.busyStatusCode());
    this.bodies = new JsonBodies(config.bodyLimitBytes());
    this.namespaces = new CacheNamespaces(auth.cacheSaltPerKey());
    this.routerEndpoints = new RouterEndpoints(models, errors, bodies, namespaces);
    this.faults = ClientFaults.of(metrics.registry());
    this.frontDoor = new FrontDoor(config.connections(), config.tls(), metrics.registry(), faults);
  }

  /**
   * An HTTP server for the calling event loop, serving {@link #router}, with the connection layer
   * of {@link FrontDoor}; not listening yet. Call once per event loop: they share the connection
   * limit.
   */
  public HttpServer createServer(Vertx vertx) {
    return frontDoor.server(vertx, router(vertx));
  }

  /** A request router for one HTTP server; call once per server (one per event loop). */
  private Router router(Vertx vertx) {
    Router router = Router.router(vertx);
    router.route().handler(new RequestIds()); // on every answer, a 401 included
    router.route().handler(new CorsPolicy(config.cors())); // a preflight has no key to check
    router.route().handler(auth); // before a body is read or a route is told apart
    BodyHandler body = BodyHandler.create(false).setBodyLimit(config.bodyLimitBytes());
    JsonContentType json = new JsonContentType();
    router
        .post("/v1/chat/completions")
        .handler(json)
        .handler(body)
        .handler(
            new GenerationHandler(
                models,
                errors,
                inFlight,
                bodies,
                auth.rateLimiter(),
                namespaces,
                "chat_completions",
                ResponseFormat.CHAT,
                OpenAiRequests::chat));
    router
        .post("/v1/completions")
        .handler(json)
        .handler(body)
        .handler(
            new GenerationHandler(
                models,
                errors,
                inFlight,
                bodies,
                auth.rateLimiter(),
                namespaces,
                "completions",
                ResponseFormat.COMPLETION,
                OpenAiRequests::completion));
    router.post("/router/explain").handler(json).handler(body).handler(routerEndpoints::explain);
    router.get("/router/workers").handler(routerEndpoints::workers);
    router.get("/v1/models").handler(this::models);
    router.get("/health").handler(this::health);
    router.get("/live").handler(this::live);
    router.get("/metrics").handler(this::metrics);
    RouteErrors.install(router, errors, faults, config.bodyLimitBytes());
    return router;
  }

  private void models(RoutingContext ctx) {
    JsonArray data = new JsonArray();
    for (ServedModels.ServedModel model : models.all()) {
      data.add(
          new JsonObject()
              .put("id", model.name())
              .put("object", "model")
              .put("created", createdEpochSeconds)
              .put("owned_by", "kvrouter"));
    }
    json(ctx, 200, new JsonObject().put("object", "list").put("data", data));
  }

  /**
   * With TLS, looks at the certificate and key files every {@link ApiKeyAuth#WATCH_INTERVAL} (off
   * the event loops) and gives every server what they hold when they changed and then held for one
   * more look (a renewal writes two files); a pair that does not load is logged and the servers
   * keep the one before. Returns the timer's id, for {@code vertx.cancelTimer}, or -1 without TLS.
   */
  public long watchTls(Vertx vertx) {
    TlsFiles tls = config.tls();
    if (tls == null) {
      return -1;
    }
    // the servers read the files on this thread too: their version is taken now
    SettledFiles files = SettledFiles.takenNow(tls.cert(), tls.key());
    return vertx.setPeriodic(
        ApiKeyAuth.WATCH_INTERVAL.toMillis(),
        id ->
            vertx
                .executeBlocking(files::look, false)
                .onSuccess(
                    changed -> {
                      if (changed) {
                        reloadTls(tls);
                      }
                    }));
  }

  private void reloadTls(TlsFiles tls) {
    frontDoor
        .reloadTls()
        .onSuccess(v -> log.info("Took the renewed TLS certificate {}", tls.cert()))
        .onFailure(
            e ->
                log.warn(
                    "The TLS files {} and {} changed but do not load ({}): the certificate before"
                        + " stays",
                    tls.cert(),
                    tls.key(),
                    e.toString()));
  }

  /**
   * Starts shutting down, as Dynamo's frontend does: {@code /live} and {@code /health} answer 503
   * so load balancers stop sending traffic, while requests keep being served.
   */
  public void beginShutdown() {
    shuttingDown = true;
  }

  /**
   * Ends every request still in flight, and any that starts from now on, with a 503 error saying
   * the router is shutting down: called when the shutdown's grace period has run out, before the
   * request plane closes under them. Completes when each has written its error.
   */
  public Future<Void> endInFlight(Duration gracePeriod) {
    return inFlight.endAll(
        new RouterShuttingDownException(
            "The router is shutting down: this request was still running when the shutdown's"
                + " grace period ("
                + gracePeriod.toMillis() / 1000.0
                + " s, --http-graceful-shutdown-timeout-secs) ended"));
  }

  /** Requests being served now. */
  public int inflightRequests() {
    return models.inflight();
  }

  private void live(RoutingContext ctx) {
    json(
        ctx,
        shuttingDown ? 503 : 200,
        new JsonObject().put("status", shuttingDown ? "shutting_down" : "live"));
  }

  private void health(RoutingContext ctx) {
    if (shuttingDown) {
      json(
          ctx,
          503,
          new JsonObject()
              .put("status", "unhealthy")
              .put("message", "The server is shutting down"));
    } else {
      List<String> ready = models.ready();
      if (!ready.isEmpty()) {
        json(
            ctx,
            200,
            new JsonObject().put("status", "healthy").put("models", new JsonArray(ready)));
      } else {
        json(
            ctx,
            503,
            new JsonObject().put("status", "unhealthy").put("message", unhealthyReason()));
      }
    }
  }

  /** Why no model is ready: none found yet, or none with a healthy worker. */
  private String unhealthyReason() {
    List<String> names = models.all().stream().map(ServedModels.ServedModel::name).toList();
    if (names.isEmpty()) {
      return "No model is served yet: no worker has registered one";
    }
    return "No healthy worker serves " + String.join(", ", names);
  }

  private void metrics(RoutingContext ctx) {
    ctx.response()
        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .end(metrics.scrape());
  }

  private static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response()
        .setStatusCode(status)
        .putHeader("content-type", "application/json")
        .end(body.toBuffer());
  }
}
