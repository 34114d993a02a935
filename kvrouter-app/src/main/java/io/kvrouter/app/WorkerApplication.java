package io.kvrouter.app;

import io.kvrouter.common.MachineAddress;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvEventsEncoding;
import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.config.WorkerApi;
import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerEventsConfig;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.DynamoIds;
import io.kvrouter.discovery.Transport;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.sglang.SglangGenerate;
import io.kvrouter.protocol.vllm.VllmCompletions;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.httprpc.HttpRpcServer;
import io.kvrouter.transport.tcp.CallHomeServer;
import io.kvrouter.transport.tcp.TcpTransport;
import io.kvrouter.transport.tcp.WorkerServer;
import io.kvrouter.worker.DataParallelEngine;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.SimulatedEngines;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The composition root of a {@code router.jar worker} process: its simulated engine, its KV event
 * publishers, its request-plane server (TCP, and NATS with {@code --request-plane nats}: {@link
 * WorkerNatsRequests}) and, if asked for, its system port ({@link WorkerSystemPort}), as Dynamo
 * workers serve them.
 */
final class WorkerApplication {
  private final WorkerConfig config;
  private final PrintWriter out;
  private final WorkerRegistration registration;

  private WorkerApplication(WorkerConfig config, PrintWriter out, WorkerRegistration registration) {
    this.config = config;
    this.out = out;
    this.registration = registration;
  }

  /**
   * Starts the worker. Returns the exit code when it could not start, or empty once it serves (a
   * shutdown hook stops it).
   */
  static OptionalInt start(
      WorkerConfig config, ModelAssets assets, PrintWriter out, PrintWriter err) {
    WorkerRegistration registration;
    try {
      registration = WorkerRegistration.start(config).orElse(null);
    } catch (RuntimeException e) {
      err.println(
          "error: cannot register in "
              + (config.etcdDiscovery().isPresent() ? "etcd" : "Kubernetes")
              + ": "
              + e.getMessage());
      return OptionalInt.of(1);
    }
    if (registration == null) {
      return new WorkerApplication(config, out, null).start(assets, err);
    }
    WorkerConfig registered = config.withWorkerId(Long.toUnsignedString(registration.instanceId()));
    OptionalInt exit = new WorkerApplication(registered, out, registration).start(assets, err);
    if (exit.isPresent()) {
      closeQuietly(registration);
    }
    return exit;
  }

  private OptionalInt start(ModelAssets assets, PrintWriter err) {
    Vertx vertx = Vertx.vertx();
    Metrics metrics = new Metrics();
    DataParallelEngine engine =
        SimulatedEngines.create(
            vertx,
            config.engine(),
            WorkerVocabulary.of(assets),
            metrics.registry(),
            Tags.of("model", config.modelName()),
            Ticker.SYSTEM);
    List<SimulatedEngine> ranks = engine.ranks();
    List<AutoCloseable> publishers;
    Map<String, JsonEndpoint> queryEndpoints = Map.of();
    WorkerEventsConfig events = config.events();
    DynamoEventSink sink = null;
    try {
      if (events.format() == KvEventsFormat.DYNAMO) {
        sink = dynamoSink(events, ranks.size());
        DynamoWorkerEvents dynamo = publishDynamo(ranks, sink);
        publishers = List.of(dynamo);
        queryEndpoints = dynamo.queryEndpoints();
      } else {
        publishers = events.kvEventsPort().isEmpty() ? List.of() : publishVllm(ranks);
      }
    } catch (RuntimeException e) {
      err.println("error: cannot publish KV events: " + e.getMessage());
      vertx.close();
      return OptionalInt.of(1);
    }
    if (config.api() != WorkerApi.DYNAMO) {
      return serveOpenAi(vertx, metrics, engine, ranks, publishers, assets, err);
    }
    Future<WorkerServer> server =
        TcpTransport.server(
            vertx,
            config.host(),
            config.port(),
            tcpPaths(Map.of(WorkerEndpoint.DEFAULT_PATH, engine)),
            tcpPaths(queryEndpoints),
            config.tcp(),
            config.acceptedResponseStreams());
    List<AutoCloseable> closers = new ArrayList<>(publishers);
    Future<?> system = systemPort(vertx, metrics, ranks);
    try {
      WorkerServer started = startedWith(server, system);
      countResponseConnections(metrics, started);
      Map<String, Transport> planeAddresses = new LinkedHashMap<>();
      if (config.requestPlane() == RequestPlaneKind.NATS) {
        WorkerNatsRequests nats =
            WorkerNatsRequests.start(
                vertx, config, Map.of(WorkerEndpoint.DEFAULT_PATH, engine), queryEndpoints);
        closers.add(nats);
        nats.subjects()
            .forEach(
                (endpoint, subject) -> {
                  planeAddresses.put(endpoint, new Transport(Transport.Kind.NATS, subject));
                  out.printf("kvrouter worker NATS request plane: %s on %s%n", endpoint, subject);
                });
      } else if (config.requestPlane() == RequestPlaneKind.HTTP) {
        HttpRpcServer http =
            started(
                HttpRpcServer.start(
                    vertx,
                    config.httpRpc(),
                    CallHomeServer.create(
                        vertx,
                        Map.of(WorkerEndpoint.DEFAULT_PATH, engine),
                        queryEndpoints,
                        config.tcp()),
                    config.tcp().maxMessageSize()));
        closers.add(() -> http.close());
        http.urlsByEndpoint()
            .forEach(
                (endpoint, url) -> {
                  planeAddresses.put(endpoint, new Transport(Transport.Kind.HTTP, url));
                  out.printf("kvrouter worker HTTP request plane: %s on %s%n", endpoint, url);
                });
      }
      if (registration != null) {
        register(assets, started.port(), queryEndpoints, planeAddresses, sink);
        closers.add(0, registration); // first at shutdown: routers drop the worker at once
      }
      SignalShutdown.install(
          "worker",
          () -> {
            closers.forEach(WorkerApplication::closeQuietly);
            return started.close().transform(v -> vertx.close());
          },
          () -> {}); // nothing to hurry: the worker does not wait for its streams
      // said once the signal handlers are in: a SIGTERM sent on seeing it always stops cleanly
      out.printf(
          "kvrouter worker ready: model %s on tcp://%s:%d/%s%n",
          config.modelName(), config.host(), started.port(), WorkerEndpoint.DEFAULT_PATH);
      out.flush();
      return OptionalInt.empty();
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      err.println("error: the worker could not start: " + cause.getMessage());
      closers.forEach(WorkerApplication::closeQuietly);
      vertx.close();
      return OptionalInt.of(1);
    }
  }

  /**
   * Serves vLLM's HTTP API ({@code --api openai}) instead of Dynamo's request plane, with the
   * system port if asked for.
   */
  private OptionalInt serveOpenAi(
      Vertx vertx,
      Metrics metrics,
      DataParallelEngine engine,
      List<SimulatedEngine> ranks,
      List<AutoCloseable> publishers,
      ModelAssets assets,
      PrintWriter err) {
    List<AutoCloseable> closers = new ArrayList<>(publishers);
    Future<HttpServer> server =
        WorkerEngineApi.serve(
            vertx,
            engine,
            ranks,
            assets,
            config.modelName(),
            config.api(),
            metrics.registry(),
            config.host(),
            config.port(),
            config.apiTls());
    Future<?> system = systemPort(vertx, metrics, ranks);
    try {
      HttpServer started = startedWith(server, system);
      SignalShutdown.install(
          "worker",
          () -> {
            closers.forEach(WorkerApplication::closeQuietly);
            return started.close().transform(v -> vertx.close());
          },
          () -> {});
      out.printf(
          "kvrouter worker ready: model %s on %s://%s:%d (%s: POST %s with token ids)%n",
          config.modelName(),
          config.apiTls().isPresent() ? "https" : "http",
          config.host(),
          started.actualPort(),
          config.api() == WorkerApi.SGLANG ? "SGLang's API" : "vLLM's API",
          config.api() == WorkerApi.SGLANG ? SglangGenerate.PATH : VllmCompletions.PATH);
      out.flush();
      return OptionalInt.empty();
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      err.println("error: the worker could not start: " + cause.getMessage());
      closers.forEach(WorkerApplication::closeQuietly);
      vertx.close();
      return OptionalInt.of(1);
    }
  }

  /** The system port, if asked for ({@code --system-port}), said once it listens. */
  private Future<?> systemPort(Vertx vertx, Metrics metrics, List<SimulatedEngine> ranks) {
    if (config.systemPort().isEmpty()) {
      return Future.succeededFuture();
    }
    return WorkerSystemPort.serve(
            vertx, metrics, ranks, config.host(), config.systemPort().getAsInt())
        .onSuccess(
            port -> out.printf("kvrouter worker system port: http://%s:%d%n", config.host(), port));
  }

  /** {@code server} once it and the system port listen; blocks up to 30 s (start-up thread). */
  private static <S> S startedWith(Future<S> server, Future<?> system) throws Exception {
    return started(Future.all(server, system).map(v -> server.result()));
  }

  /** {@code server} once it listens; blocks up to 30 s (start-up thread). */
  private static <S> S started(Future<S> server) throws Exception {
    return server.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  /** Registers the worker's records (in etcd under its lease, or in Kubernetes) and says so. */
  private void register(
      ModelAssets assets,
      int tcpPort,
      Map<String, JsonEndpoint> queryEndpoints,
      Map<String, Transport> planeAddresses,
      DynamoEventSink sink)
      throws java.io.IOException {
    Set<String> endpoints = new LinkedHashSet<>();
    endpoints.add(WorkerEndpoint.DEFAULT_PATH);
    endpoints.addAll(queryEndpoints.keySet());
    List<DiscoveryRecord> records =
        WorkerRecords.of(
            config,
            registration.instanceId(),
            advertisedHost(),
            tcpPort,
            endpoints,
            planeAddresses,
            WorkerRecords.card(config, assets),
            sink);
    registration.register(records);
    out.printf(
        "kvrouter worker registered in %s as instance %s:%n",
        registration.where(), DynamoIds.hex(registration.instanceId()));
    records.forEach(record -> out.printf("  %s%n", record.key()));
  }

  /** How routers reach this worker's servers: {@code --host}, or this machine's address. */
  private String advertisedHost() {
    return MachineAddress.advertised(config.host());
  }

  /**
   * The response connections the worker has opened, by transport, on its {@code /metrics}: one per
   * response on call-home, a few pooled ones on {@code tcp_response_mux_v1}.
   */
  private static void countResponseConnections(Metrics metrics, WorkerServer server) {
    FunctionCounter.builder(
            "kvrouter_worker_response_connections_opened",
            server,
            s -> s.callHomeConnectionsOpened())
        .description("Response-stream connections the worker opened to frontends")
        .tag("transport", "tcp_server")
        .register(metrics.registry());
    FunctionCounter.builder(
            "kvrouter_worker_response_connections_opened", server, s -> s.muxConnectionsOpened())
        .description("Response-stream connections the worker opened to frontends")
        .tag("transport", "tcp_response_mux_v1")
        .register(metrics.registry());
  }

  private DynamoEventSink dynamoSink(WorkerEventsConfig events, int ranks) {
    return switch (events.plane()) {
      case NATS -> NatsDynamoSink.start(events, ranks);
      case KAFKA -> KafkaDynamoSink.start(events);
      case ZMQ ->
          ZmqDynamoSink.start(
              zmqBindHost(),
              events.kvEventsPort().getAsInt(),
              events.kvMetricsPort().orElse(0),
              advertisedHost());
    };
  }

  /** One vLLM publisher per rank, rank r on the base ports + r (vLLM's data-parallel offsets). */
  private List<AutoCloseable> publishVllm(List<SimulatedEngine> ranks) {
    WorkerEventsConfig events = config.events();
    int eventsPort = events.kvEventsPort().getAsInt();
    String bindHost = zmqBindHost();
    List<AutoCloseable> publishers = new ArrayList<>();
    try {
      for (int dp = 0; dp < ranks.size(); dp++) {
        ZmqEventPublisher publisher =
            SimulatedWorkerEvents.publish(
                ranks.get(dp),
                new ZmqEventPublisher.Options(
                    bindHost,
                    eventsPort == 0 ? 0 : eventsPort + dp,
                    rankPort(events.kvReplayPort(), dp),
                    "",
                    10_000,
                    events.encoding() == KvEventsEncoding.MAP
                        ? VllmEventCodec.Encoding.MAP
                        : VllmEventCodec.Encoding.ARRAY,
                    dp,
                    events.dropRate(),
                    System.nanoTime()));
        publishers.add(publisher);
        if (dp == 0) {
          out.printf(
              "kvrouter worker kv events: tcp://%s:%d%s%n",
              config.host(),
              publisher.port(),
              publisher.replayPort() < 0
                  ? ""
                  : ", replay tcp://" + config.host() + ":" + publisher.replayPort());
        }
      }
    } catch (RuntimeException e) {
      publishers.forEach(WorkerApplication::closeQuietly);
      throw e;
    }
    return publishers;
  }

  /** Rank {@code dp}'s replay port: none (-1), a free one (0), or the base port + {@code dp}. */
  private static int rankPort(OptionalInt base, int dp) {
    if (base.isEmpty()) {
      return -1;
    }
    return base.getAsInt() == 0 ? 0 : base.getAsInt() + dp;
  }

  /**
   * Each endpoint by the paths it is served under on the TCP request plane: its name, and, when the
   * worker registers in discovery, also {@code {instance_id:x}/{name}}, the path after {@code
   * host:port/} of the address it advertises there, which a frontend sends as the request's path.
   */
  private <T> Map<String, T> tcpPaths(Map<String, T> byName) {
    if (registration == null) {
      return byName;
    }
    Map<String, T> paths = new LinkedHashMap<>(byName);
    String instance = DynamoIds.hex(registration.instanceId());
    byName.forEach((name, served) -> paths.put(instance + "/" + name, served));
    return paths;
  }

  /** The address ZeroMQ binds for {@code --host}: {@code *} for every interface. */
  private String zmqBindHost() {
    return config.host().equals("0.0.0.0") ? "*" : config.host();
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing on the way out: a failed start has already reported the error that matters
    }
  }

  private DynamoWorkerEvents publishDynamo(List<SimulatedEngine> ranks, DynamoEventSink sink) {
    String workerId = config.events().workerId();
    DynamoWorkerEvents events =
        DynamoWorkerEvents.start(
            ranks, workerId, sink, Duration.ofMillis(100), config.events().dropRate());
    out.printf("kvrouter worker kv events: %s as worker %s%n", events.describe(), workerId);
    return events;
  }
}
