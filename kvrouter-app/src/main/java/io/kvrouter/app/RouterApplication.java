package io.kvrouter.app;

import io.kvrouter.common.Ports;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConfigException;
import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.HttpConfig;
import io.kvrouter.config.ModelConfig;
import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.events.nats.NatsConnection;
import io.kvrouter.frontend.ApiKeyAuth;
import io.kvrouter.frontend.HttpFrontend;
import io.kvrouter.frontend.RateLimiter;
import io.kvrouter.frontend.ServedModels;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.OutputParsers;
import io.kvrouter.preprocess.parse.ReasoningParserName;
import io.kvrouter.preprocess.parse.ToolCallParserName;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.SplitRequestPlane;
import io.kvrouter.transport.http.HttpRequestPlane;
import io.kvrouter.transport.httprpc.HttpRpcClient;
import io.kvrouter.transport.nats.NatsTransport;
import io.kvrouter.transport.tcp.TcpTransport;
import io.kvrouter.transport.tcp.WorkerServer;
import io.kvrouter.worker.DataParallelEngine;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.SimulatedEngines;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of a router process: loads the model, starts the in-process simulated
 * workers if asked for, and wires request plane, router, preprocessor and HTTP frontend.
 */
public final class RouterApplication {
  private static final Logger log = LoggerFactory.getLogger(RouterApplication.class);

  private final String serving;
  private final Vertx vertx;

  /** The one model of --model-path; null with discovery. */
  private final ModelDeployment staticModel;

  /** The models discovery found; null without. */
  private final DiscoveredModels discovered;

  private final StartedParts parts;
  private final List<SimulatedEngine> mockEngines;
  private final int httpPort;
  private final HttpFrontend frontend;
  private final Duration gracefulShutdownTimeout;
  private Future<Void> stopping;
  private volatile boolean graceEnded;

  private RouterApplication(
      String serving,
      Vertx vertx,
      ModelDeployment staticModel,
      DiscoveredModels discovered,
      StartedParts parts,
      List<SimulatedEngine> mockEngines,
      int httpPort,
      HttpFrontend frontend,
      Duration gracefulShutdownTimeout) {
    this.serving = serving;
    this.vertx = vertx;
    this.staticModel = staticModel;
    this.discovered = discovered;
    this.parts = parts;
    this.mockEngines = mockEngines;
    this.httpPort = httpPort;
    this.frontend = frontend;
    this.gracefulShutdownTimeout = gracefulShutdownTimeout;
  }

  /**
   * Logs that the router serves (model, address, workers, mode): the line operators and scripts
   * wait for. The process calls it once it is ready for signals, so a SIGTERM sent on seeing the
   * line is always a clean drain.
   */
  public void announce() {
    log.info(serving);
  }

  /**
   * Starts a router. The model files are read on the calling thread (start-up, not an event loop);
   * everything else is asynchronous. A start that fails part way closes what it had started
   * (threads, sockets, Vert.x) before its future fails with the cause.
   *
   * @throws ConfigException when the model folder cannot be loaded
   */
  public static Future<RouterApplication> start(RouterConfig config, VertxOptions vertxOptions) {
    return start(config, vertxOptions, Ticker.SYSTEM);
  }

  /**
   * Starts a router as {@link #start(RouterConfig, VertxOptions)} does, its rate limits reading the
   * time from {@code limitsClock} (a test's own clock: buckets refill only when it moves).
   */
  static Future<RouterApplication> start(
      RouterConfig config, VertxOptions vertxOptions, Ticker limitsClock) {
    OutputParsers parsers = outputParsers(config.model());
    ModelAssets assets = config.discovery().dynamic() ? null : loadModel(config);
    Vertx vertx = Vertx.vertx(vertxOptions);
    StartedParts parts = new StartedParts();
    Future<RouterApplication> started;
    try {
      started = startOn(vertx, parts, config, vertxOptions, assets, parsers, limitsClock);
    } catch (RuntimeException e) {
      started = Future.failedFuture(e);
    }
    // not tied to a Vert.x context: after a failure it completes once Vert.x is closed
    Promise<RouterApplication> result = Promise.promise();
    started.onComplete(
        ar -> {
          if (ar.succeeded()) {
            result.complete(ar.result());
          } else {
            parts.closeAll(vertx).onComplete(closed -> result.fail(ar.cause()));
          }
        });
    return result.future();
  }

  /** Starts everything on {@code vertx}, adding each part to {@code parts} once started. */
  private static Future<RouterApplication> startOn(
      Vertx vertx,
      StartedParts parts,
      RouterConfig config,
      VertxOptions vertxOptions,
      ModelAssets assets,
      OutputParsers parsers,
      Ticker limitsClock) {
    Metrics metrics = new Metrics();
    if (config.discovery().dynamic()) {
      return startDiscovering(vertx, parts, config, vertxOptions, parsers, metrics, limitsClock);
    }
    String model = config.model().servedName();
    List<SimulatedEngine> engines = new ArrayList<>();
    List<Future<WorkerServer>> servers = new ArrayList<>();
    for (int i = 1; i <= config.mockWorkers().count(); i++) {
      DataParallelEngine engine =
          SimulatedEngines.create(
              vertx,
              config.mockWorkers().engine(),
              WorkerVocabulary.of(assets),
              metrics.registry(),
              Tags.of("model", model, "worker", EventPlane.mockWorkerId(i - 1)),
              Ticker.SYSTEM);
      engines.addAll(engine.ranks()); // one each: the router's mock workers have one rank
      servers.add(
          TcpTransport.server(
                  vertx, "127.0.0.1", 0, Map.of(WorkerEndpoint.DEFAULT_PATH, engine), config.tcp())
              .onSuccess(server -> parts.addAsync("simulated worker server", server::close)));
    }
    int blockSize = config.model().kvCacheBlockSize();
    ModelDeployment.Model served =
        new ModelDeployment.Model(
            model, assets, parsers, blockSize, config.migrationLimit(), config.eventPlane(), false);
    return Future.all(servers)
        .compose(
            all -> {
              List<WorkerServer> mockServers = all.list();
              RequestPlane plane = requestPlane(vertx, config, parts);
              parts.addAsync("request plane", plane::close);
              ServedModels models = new ServedModels(metrics, Ticker.SYSTEM);
              HttpFrontend frontend = frontend(vertx, config, models, metrics, parts, limitsClock);
              // binding and connecting the event plane's sockets blocks: not on an event loop
              return vertx
                  .executeBlocking(
                      () -> {
                        ModelDeployment deployment =
                            ModelDeployment.create(
                                vertx,
                                config,
                                served,
                                engines,
                                plane,
                                metrics,
                                spec -> WorkerEndpoints.of(spec, config));
                        parts.add("model " + model, deployment);
                        models.add(deployment.preprocessor(), blockSize);
                        staticWorkers(config, mockServers, deployment.events())
                            .forEach(deployment.fleet()::join);
                        if (config.discovery().pods().isPresent()) {
                          parts.add(
                              "pod workers",
                              PodFleet.start(
                                  config.discovery().kube().orElseThrow(),
                                  config.discovery().pods().get(),
                                  deployment.fleet()));
                        }
                        return deployment;
                      },
                      false)
                  .compose(
                      deployment ->
                          plane
                              .start()
                              .compose(v -> deployment.router().start())
                              .compose(
                                  v ->
                                      serveHttp(
                                          vertx,
                                          config,
                                          vertxOptions.getEventLoopPoolSize(),
                                          frontend))
                              .map(
                                  port ->
                                      new RouterApplication(
                                          "kvrouter serving model "
                                              + model
                                              + " on http://"
                                              + config.http().host()
                                              + ":"
                                              + port
                                              + " with "
                                              + deployment.fleet().workers().size()
                                              + " worker(s), router mode "
                                              + config.routerMode().configName(),
                                          vertx,
                                          deployment,
                                          null,
                                          parts,
                                          engines,
                                          port,
                                          frontend,
                                          config.http().gracefulShutdownTimeout())));
            });
  }

  /**
   * Starts a router whose models and workers come from discovery: the request plane, then the
   * watcher, whose first listing is applied before the HTTP server opens (so a router that says it
   * serves does serve what the store held).
   */
  /**
   * The HTTP frontend, behind the API keys of {@code config}, with its TLS certificate (their files
   * watched until the router closes).
   */
  private static HttpFrontend frontend(
      Vertx vertx,
      RouterConfig config,
      ServedModels models,
      Metrics metrics,
      StartedParts parts,
      Ticker limitsClock) {
    ApiKeyAuth auth =
        new ApiKeyAuth(
            config.apiKeys(), metrics.registry(), new RateLimiter(metrics.registry(), limitsClock));
    long watch = auth.watch(vertx);
    if (watch >= 0) {
      parts.add("API keys file watch", () -> vertx.cancelTimer(watch));
    }
    if (auth.clientKeysRequired() && !auth.adminKeyRequired()) {
      log.warn(
          "API keys protect the OpenAI routes, but /metrics and /router/... are open to anyone"
              + " who reaches the port: give --admin-api-key to protect them too");
    }
    HttpFrontend frontend = new HttpFrontend(models, metrics, config.http(), auth);
    long tlsWatch = frontend.watchTls(vertx);
    if (tlsWatch >= 0) {
      parts.add("TLS files watch", () -> vertx.cancelTimer(tlsWatch));
    }
    return frontend;
  }

  private static Future<RouterApplication> startDiscovering(
      Vertx vertx,
      StartedParts parts,
      RouterConfig config,
      VertxOptions vertxOptions,
      OutputParsers parsers,
      Metrics metrics,
      Ticker limitsClock) {
    RequestPlane plane = requestPlane(vertx, config, parts);
    parts.addAsync("request plane", plane::close);
    ServedModels models = new ServedModels(metrics, Ticker.SYSTEM);
    HttpFrontend frontend = frontend(vertx, config, models, metrics, parts, limitsClock);
    CardFiles files = new CardFiles(System.getenv(), config.eventPlane().natsServer());
    DiscoveredModels discovered =
        new DiscoveredModels(
            config.discovery(),
            config.requestPlane(),
            models,
            card -> deploy(vertx, config, parsers, files, plane, metrics, card));
    parts.add("discovered models", discovered);
    return plane
        .start()
        .compose(
            v ->
                vertx.executeBlocking(
                    () -> {
                      parts.add("discovery watcher", DiscoveryWatch.start(config, discovered));
                      DiscoveryWatch.awaitFirstListing(config, discovered);
                      return null;
                    },
                    false))
        .compose(v -> serveHttp(vertx, config, vertxOptions.getEventLoopPoolSize(), frontend))
        .map(
            port ->
                new RouterApplication(
                    "kvrouter serving the models found by --discovery-backend "
                        + config.discovery().backend().configName()
                        + " on http://"
                        + config.http().host()
                        + ":"
                        + port
                        + " ("
                        + models.names().size()
                        + " now: "
                        + String.join(", ", models.names())
                        + "), router mode "
                        + config.routerMode().configName(),
                    vertx,
                    null,
                    discovered,
                    parts,
                    List.of(),
                    port,
                    frontend,
                    config.http().gracefulShutdownTimeout()));
  }

  /**
   * The deployment of a model discovery found: its card's files, block size, context length (unless
   * {@code --context-length}) and migration limit (the larger of the card's and {@code
   * --migration-limit}), with its events on its card's endpoint. Blocks: loads files, connects.
   */
  private static ModelDeployment deploy(
      Vertx vertx,
      RouterConfig config,
      OutputParsers parsers,
      CardFiles files,
      RequestPlane plane,
      Metrics metrics,
      ModelCardRecord record)
      throws IOException {
    ModelCard card = record.card();
    ModelAssets assets = files.load(card);
    Integer contextLength = config.model().contextLength();
    if (contextLength != null) {
      assets = assets.withContextLength(contextLength);
    } else if (card.contextLength().isPresent()) {
      assets = assets.withContextLength(card.contextLength().getAsInt());
    }
    EventPlaneConfig events =
        config.eventPlane().withScope(record.namespace(), record.component(), record.endpoint());
    ModelDeployment deployment =
        ModelDeployment.create(
            vertx,
            config,
            new ModelDeployment.Model(
                card.displayName(),
                assets,
                parsers,
                card.kvCacheBlockSize(),
                Math.max(config.migrationLimit(), card.migrationLimit()),
                events,
                true),
            List.of(),
            plane,
            metrics,
            spec -> {
              throw new IllegalStateException("a discovered worker joins with its endpoint");
            });
    deployment.router().start(); // with no worker yet it has nothing to probe
    return deployment;
  }

  /**
   * Deploys one HTTP server per event loop, all on one port; the future gives the port. The servers
   * are closed with Vert.x.
   */
  private static Future<Integer> serveHttp(
      Vertx vertx, RouterConfig config, int instances, HttpFrontend frontend) {
    List<FrontendVerticle> verticles = new ArrayList<>();
    // Every instance must listen on one explicit port for Vert.x to share it.
    HttpConfig http =
        config.http().withPort(Ports.resolve(config.http().host(), config.http().port()));
    return vertx
        .deployVerticle(
            () -> {
              FrontendVerticle verticle = new FrontendVerticle(frontend, http);
              synchronized (verticles) {
                verticles.add(verticle);
              }
              return verticle;
            },
            new DeploymentOptions().setInstances(instances))
        .map(id -> verticles.get(0).port());
  }

  /**
   * The request plane {@code --request-plane} names for Dynamo workers (with {@code http}, TCP
   * beside it for the workers that advertise a TCP address), and HTTP for plain engines. A worker
   * that called back but sends no prologue is given up after as long as a silent stream.
   */
  private static RequestPlane requestPlane(Vertx vertx, RouterConfig config, StartedParts parts) {
    TcpConfig tcp = config.tcp().withPrologueTimeout(config.workerStreamIdleTimeout());
    RequestPlane dynamo;
    if (config.requestPlane() == RequestPlaneKind.NATS) {
      NatsConnection nats =
          NatsConnection.start(config.eventPlane().natsServer(), "kvrouter-request-plane");
      parts.add("NATS request-plane connection", nats);
      dynamo = NatsTransport.client(vertx, tcp, nats::current);
    } else if (config.requestPlane() == RequestPlaneKind.HTTP) {
      // workers that advertise a URL get a POST, the others their TCP frame: one call-home listener
      dynamo = TcpTransport.client(vertx, tcp, HttpRpcClient.create(vertx, config.httpRpc(), tcp));
    } else {
      dynamo = TcpTransport.client(vertx, tcp);
    }
    // plain engines' HTTP servers (url= workers) beside the Dynamo workers, in one router
    return new SplitRequestPlane(
        dynamo,
        HttpRequestPlane.create(
            vertx, tcp, config.http().connections().maxConnections(), config.engineTls()));
  }

  /**
   * The workers the router starts with: the configured ones, then the simulated ones (publishing
   * their events where {@code eventPlane} has them publish).
   */
  private static List<WorkerSpec> staticWorkers(
      RouterConfig config, List<WorkerServer> mockServers, EventPlane eventPlane) {
    List<WorkerSpec> workers = new ArrayList<>(config.workers());
    for (int i = 0; i < mockServers.size(); i++) {
      workers.add(
          new WorkerSpec(
              EventPlane.mockWorkerId(i),
              "127.0.0.1",
              mockServers.get(i).port(),
              WorkerEndpoint.DEFAULT_PATH,
              config.mockWorkers().engine().numGpuBlocks(),
              eventPlane.mockSource(i),
              1));
    }
    return workers;
  }

  /** Default Vert.x options: one event loop per core. */
  public static VertxOptions defaultVertxOptions() {
    return new VertxOptions().setEventLoopPoolSize(Runtime.getRuntime().availableProcessors());
  }

  /** The parsers named by --reasoning-parser and --tool-call-parser. */
  static OutputParsers outputParsers(ModelConfig model) {
    return new OutputParsers(
        parser(
            "--reasoning-parser",
            model.reasoningParser(),
            ReasoningParserName::of,
            ReasoningParserName.names()),
        parser(
            "--tool-call-parser",
            model.toolCallParser(),
            ToolCallParserName::of,
            ToolCallParserName.names()));
  }

  /** The parser {@code flag} names, or null when it is not set. */
  private static <P> P parser(
      String flag, String name, Function<String, Optional<P>> byName, String names) {
    if (name == null) {
      return null;
    }
    return byName
        .apply(name)
        .orElseThrow(
            () ->
                new ConfigException(
                    "Invalid value '" + name + "' for " + flag + ": expected one of " + names));
  }

  /** The model's files, with the context length of {@code --context-length} when given. */
  private static ModelAssets loadModel(RouterConfig config) {
    ModelAssets assets = readModel(config);
    Integer contextLength = config.model().contextLength();
    if (contextLength != null) {
      assets = assets.withContextLength(contextLength);
    }
    log.info(
        "context length: {}",
        assets.contextLength().isPresent()
            ? assets.contextLength().getAsInt()
                + " tokens"
                + (contextLength != null ? " (--context-length)" : " (the model's)")
            : "none; requests are bounded by the workers' KV caches when known");
    return assets;
  }

  private static ModelAssets readModel(RouterConfig config) {
    if (config.model().path() == null) {
      return ModelAssets.demo();
    }
    try {
      return ModelAssets.load(config.model().path());
    } catch (IOException | RuntimeException e) {
      throw new ConfigException(
          "Invalid value '"
              + config.model().path()
              + "' for --model-path: "
              + e.getMessage()
              + "; expected a Hugging Face model folder holding tokenizer.json");
    }
  }

  /** The port the HTTP server listens on. */
  public int httpPort() {
    return httpPort;
  }

  Vertx vertx() {
    return vertx;
  }

  /**
   * The router's set of workers, where workers join and leave while it runs. Its calls block for a
   * while: not for an event loop.
   */
  public WorkerFleet fleet() {
    if (staticModel == null) {
      throw new IllegalStateException("with discovery, each model has its own worker set");
    }
    return staticModel.fleet();
  }

  /** What the router knows about each worker now (of every model). */
  public List<WorkerStatus> routerWorkers() {
    return staticModel != null ? staticModel.router().workers() : discovered.workers();
  }

  /**
   * The KV index of the {@code --model-path} model as events that rebuild it; empty outside the kv
   * and approx modes, and with discovery.
   */
  Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex() {
    return staticModel == null ? Optional.empty() : staticModel.router().dumpKvIndex();
  }

  /** The simulated workers started in this process, in order. */
  public List<SimulatedEngine> mockEngines() {
    return mockEngines;
  }

  /**
   * Shuts down gracefully: {@code /live} turns 503 at once, requests in flight get up to {@code
   * --http-graceful-shutdown-timeout-secs} to finish (new ones are still served meanwhile, as
   * Dynamo does), then the ones still running end with an error saying the router is shutting down,
   * and everything closes.
   */
  public synchronized Future<Void> stop() {
    if (stopping != null) {
      return stopping;
    }
    frontend.beginShutdown();
    log.info(
        "shutting down: /live and /health answer 503; {} requests in flight get up to {} s to"
            + " finish",
        frontend.inflightRequests(),
        gracefulShutdownTimeout.toMillis() / 1000.0);
    Promise<Void> drained = Promise.promise();
    awaitDrained(Ticker.SYSTEM.nanos() + gracefulShutdownTimeout.toNanos(), drained);
    stopping =
        drained
            .future()
            .compose(v -> endUnfinished())
            .compose(v -> parts.closeAll(vertx))
            .onSuccess(v -> log.info("stopped"));
    return stopping;
  }

  /**
   * Ends the grace period now: requests still in flight are ended and the router closes. A second
   * SIGTERM or SIGINT does this.
   */
  void endGracePeriod() {
    graceEnded = true;
  }

  /** Ends the requests the grace period did not see finish, with an error that says why. */
  private Future<Void> endUnfinished() {
    int unfinished = frontend.inflightRequests();
    if (unfinished == 0) {
      log.info("every request finished; closing");
      return Future.succeededFuture();
    }
    log.warn(
        "the shutdown grace period ended with {} requests in flight; ending them with an error",
        unfinished);
    return frontend.endInFlight(gracefulShutdownTimeout);
  }

  /** For tests: {@code part} is closed with the rest, before the parts started earlier. */
  void closeAlso(String name, AutoCloseable part) {
    parts.add(name, part);
  }

  /** Completes {@code drained} once no request is in flight, or at {@code deadlineNanos}. */
  private void awaitDrained(long deadlineNanos, Promise<Void> drained) {
    if (frontend.inflightRequests() == 0 || graceEnded || Ticker.SYSTEM.nanos() >= deadlineNanos) {
      drained.complete();
    } else {
      vertx.setTimer(20, id -> awaitDrained(deadlineNanos, drained));
    }
  }
}
