package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ModelLocation;
import io.kvrouter.config.Setting;
import io.kvrouter.config.Settings;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import io.kvrouter.transport.JsonEndpoint;
import io.kvrouter.transport.tcp.TcpTransport;
import io.kvrouter.transport.tcp.WorkerServer;
import io.kvrouter.worker.DataParallelEngine;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.TimingModel;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code router.jar worker}: one simulated worker as its own process, serving Dynamo's TCP request
 * plane, and optionally Prometheus metrics and health on a system port, as Dynamo workers do.
 */
@Command(
    name = "worker",
    mixinStandardHelpOptions = true,
    description = {
      "Run one simulated worker that serves Dynamo's TCP request plane on --port.",
      "The router reaches it with --worker id=w1,address=HOST:PORT."
    })
final class WorkerCommand implements Subcommand {
  @Spec CommandSpec spec;

  @Option(
      names = "--host",
      paramLabel = "HOST",
      description = "Address to listen on. Env: DYN_TCP_RPC_HOST. Default: 0.0.0.0.")
  String host;

  @Option(
      names = "--port",
      paramLabel = "PORT",
      description = "Request-plane port (0 picks a free port). Env: DYN_TCP_RPC_PORT. Required.")
  Integer port;

  @Option(
      names = "--model-name",
      paramLabel = "NAME",
      required = true,
      description = "Name of the model this worker serves (labels its metrics).")
  String modelName;

  @Option(
      names = "--model-path",
      paramLabel = "DIR|ORG/NAME",
      description =
          "Hugging Face model folder, or the id of a model in the local Hugging Face cache"
              + " (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub); output is drawn"
              + " from its tokenizer's vocabulary. Without it, output is demo-tokenizer text.")
  String modelPath;

  @Option(
      names = "--ttft-ms",
      paramLabel = "MS",
      defaultValue = "50",
      description = "Time to first token in milliseconds. Default: ${DEFAULT-VALUE}.")
  int ttftMs;

  @Option(
      names = "--itl-ms",
      paramLabel = "MS",
      defaultValue = "10",
      description = "Delay between tokens in milliseconds. Default: ${DEFAULT-VALUE}.")
  int itlMs;

  @Option(
      names = "--timing-model",
      paramLabel = "MODEL",
      defaultValue = "fixed",
      description =
          "How requests are paced: fixed (--ttft-ms, then --itl-ms per token, whatever the load)"
              + " or mocker (as router.jar simulate: requests queue and are batched in steps whose"
              + " time follows Dynamo mocker's fit of a vLLM GPU, so time to first token grows"
              + " with the uncached prompt and the queue). Default: ${DEFAULT-VALUE}.")
  String timingModel;

  @Option(
      names = "--speedup-ratio",
      paramLabel = "X",
      defaultValue = "1",
      description =
          "With --timing-model mocker: run X times faster than the fitted GPU."
              + " Default: ${DEFAULT-VALUE}.")
  double speedupRatio;

  @Option(
      names = "--max-num-seqs",
      paramLabel = "N",
      defaultValue = "256",
      description =
          "With --timing-model mocker: requests running at once. Default: ${DEFAULT-VALUE}.")
  int maxNumSeqs;

  @Option(
      names = "--max-num-batched-tokens",
      paramLabel = "N",
      defaultValue = "8192",
      description =
          "With --timing-model mocker: tokens computed per step; longer prompts are"
              + " prefilled in chunks. Default: ${DEFAULT-VALUE}.")
  int maxNumBatchedTokens;

  @Option(
      names = "--watermark",
      paramLabel = "FRACTION",
      defaultValue = "0.01",
      description =
          "With --timing-model mocker: fraction of the KV cache kept free when"
              + " admitting a request. Default: ${DEFAULT-VALUE}.")
  double watermark;

  @Option(
      names = "--block-size",
      paramLabel = "TOKENS",
      defaultValue = "16",
      description =
          "Tokens per KV cache block, as vLLM's --block-size; must match the router's"
              + " --kv-cache-block-size. From 1 to 1024. Default: ${DEFAULT-VALUE}.")
  int blockSize;

  @Option(
      names = "--num-gpu-blocks",
      paramLabel = "BLOCKS",
      defaultValue = "16384",
      description =
          "KV cache capacity in blocks (as Dynamo's mocker): prompt and output blocks are"
              + " cached, reused by later requests with the same prefix and evicted least"
              + " recently used first; a request whose prompt does not fit is refused. From 1 to"
              + " 1000000000. Default: ${DEFAULT-VALUE}.")
  int numGpuBlocks;

  @Option(
      names = "--data-parallel-size",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "Data-parallel ranks, each with its own KV cache of --num-gpu-blocks, behind the one"
              + " request-plane port: a request goes to the rank the router names in"
              + " routing.dp_rank, else to the least busy. Rank r publishes its KV events on"
              + " --kv-events-port + r and --kv-replay-port + r (as vLLM), or, in Dynamo's format,"
              + " with dp_rank r. From 1 to 256. Default: ${DEFAULT-VALUE}.")
  int dataParallelSize;

  @Option(
      names = "--kv-events-port",
      paramLabel = "PORT",
      description =
          "Publish the cache's KV events on ZMQ on this port (0 picks a free port): as vLLM does"
              + " (PUB, topic \"\", frames topic | seq | msgpack batch), or with"
              + " --kv-events-format dynamo as Dynamo's ZMQ event plane (topic kv-events,"
              + " enveloped msgpack RouterEvents of every rank). The router follows them with"
              + " --worker ...,kv-events=tcp://HOST:PORT. Off by default.")
  Integer kvEventsPort;

  @Option(
      names = "--kv-metrics-port",
      paramLabel = "PORT",
      description =
          "With --kv-events-format dynamo on zmq: publish the load reports (topic kv_metrics,"
              + " msgpack ActiveLoad) on this port; the router reads them with --worker"
              + " ...,kv-metrics=tcp://HOST:PORT. Default: a free port, printed at start.")
  Integer kvMetricsPort;

  @Option(
      names = "--kv-replay-port",
      paramLabel = "PORT",
      description =
          "Answer replay requests (ZMQ ROUTER, as vLLM's replay_endpoint) from a buffer of the"
              + " last 10000 batches on this port (0 picks a free port); needs --kv-events-port."
              + " Off by default.")
  Integer kvReplayPort;

  @Option(
      names = "--vllm-encoding",
      paramLabel = "ENCODING",
      defaultValue = "map",
      description =
          "msgpack layout of the events: map (vLLM since mid-2026) or array (earlier vLLM)."
              + " Default: ${DEFAULT-VALUE}.")
  String kvEventsEncoding;

  @Option(
      names = "--kv-events-drop-rate",
      paramLabel = "FRACTION",
      defaultValue = "0",
      description =
          "Lose this fraction of published batches (zmq) or events (nats) on purpose; they"
              + " stay replayable, or answerable by recovery query, to try a router against a"
              + " lossy network. From 0 to 0.99. Default: ${DEFAULT-VALUE}.")
  double kvEventsDropRate;

  @Option(
      names = "--event-plane",
      paramLabel = "PLANE",
      description =
          "Where KV events go: zmq (PUB sockets on --kv-events-port, in --kv-events-format) or"
              + " nats (Dynamo's RouterEvent JSON on namespace.NS.component.NAME.kv_events, load"
              + " on namespace.NS.kv_metrics). In Dynamo's format recovery queries are answered on"
              + " the request plane at worker_kv_indexer_query_dpR."
              + " Env: DYN_EVENT_PLANE. Default: zmq.")
  String eventPlane;

  @Option(
      names = "--kv-events-format",
      paramLabel = "FORMAT",
      description =
          "vllm (msgpack batches; zmq only) or dynamo (RouterEvents: JSON on nats, enveloped"
              + " msgpack on zmq, recovery queries answered on the request plane). Default: vllm"
              + " on zmq, dynamo on nats.")
  String kvEventsFormat;

  @Option(
      names = "--nats-server",
      paramLabel = "URL",
      description =
          "NATS server for --event-plane nats. Env: NATS_SERVER. Default:"
              + " nats://localhost:4222.")
  String natsServer;

  @Option(
      names = "--namespace",
      paramLabel = "NS",
      description = "Dynamo namespace of the NATS subjects. Env: DYN_NAMESPACE. Default: dynamo.")
  String namespace;

  @Option(
      names = "--component",
      paramLabel = "NAME",
      defaultValue = "backend",
      description = "Dynamo component of the NATS subjects. Default: ${DEFAULT-VALUE}.")
  String component;

  @Option(
      names = "--worker-id",
      paramLabel = "ID",
      description =
          "Dynamo worker id (a decimal u64) stamped on the events with --event-plane nats; the"
              + " router names this worker the same (--worker id=ID,...). Default: a random one,"
              + " printed at start.")
  String workerId;

  @Option(
      names = "--durable-kv-events",
      description =
          "With --event-plane nats: keep the events in the JetStream stream of the subject"
              + " (created if missing), for routers that follow it with --durable-kv-events.")
  boolean durableKvEvents;

  @Option(
      names = "--system-port",
      paramLabel = "PORT",
      description =
          "Serve /metrics (dynamo_component_*), /health and /kv/state (every cached KV block)"
              + " over HTTP on this port."
              + " Env: DYN_SYSTEM_PORT. Off by default. The largest request-plane frame follows"
              + " DYN_TCP_MAX_MESSAGE_SIZE, as in the router.")
  Integer systemPort;

  @Override
  public OptionalInt run(Map<String, String> env) {
    PrintWriter err = spec.commandLine().getErr();
    TcpConfig tcp;
    try {
      fillFromEnvironment(env);
      tcp = tcpConfig(env);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    String problem = validate();
    if (problem != null) {
      err.println("error: " + problem);
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    ModelAssets assets;
    try {
      assets =
          modelPath == null
              ? ModelAssets.demo()
              : ModelAssets.load(ModelLocation.resolve(modelPath, env).folder());
    } catch (Exception e) {
      err.println("error: cannot load --model-path " + modelPath + ": " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    EngineSettings scheduler;
    try {
      scheduler =
          timingModel.equals("mocker")
              ? new EngineSettings(
                  blockSize,
                  numGpuBlocks,
                  maxNumSeqs,
                  maxNumBatchedTokens,
                  watermark,
                  new TimingModel(speedupRatio))
              : null;
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      return OptionalInt.of(Cli.USAGE_ERROR);
    }
    Vertx vertx = Vertx.vertx();
    Metrics metrics = new Metrics();
    SimulatedEngine.Options engineOptions =
        new SimulatedEngine.Options(
            WorkerVocabulary.of(assets),
            Duration.ofMillis(ttftMs),
            Duration.ofMillis(itlMs),
            blockSize,
            numGpuBlocks,
            scheduler);
    List<SimulatedEngine> ranks = new ArrayList<>(dataParallelSize);
    for (int dp = 0; dp < dataParallelSize; dp++) {
      ranks.add(
          new SimulatedEngine(
              vertx,
              engineOptions,
              metrics.registry(),
              Tags.of("model", modelName, "dp_rank", String.valueOf(dp)),
              Ticker.SYSTEM));
    }
    DataParallelEngine engine = new DataParallelEngine(ranks);
    List<AutoCloseable> publishers;
    Map<String, JsonEndpoint> queryEndpoints = Map.of();
    try {
      if (kvEventsFormat.equals("dynamo")) {
        DynamoWorkerEvents events =
            publishDynamo(
                ranks,
                eventPlane.equals("nats")
                    ? NatsDynamoSink.start(
                        natsServer, namespace, component, durableKvEvents, workerId)
                    : ZmqDynamoSink.start(
                        zmqBindHost(),
                        kvEventsPort,
                        kvMetricsPort == null ? 0 : kvMetricsPort,
                        host));
        publishers = List.of(events);
        queryEndpoints = events.queryEndpoints();
      } else {
        publishers = kvEventsPort == null ? List.of() : publishKvEvents(ranks);
      }
    } catch (RuntimeException e) {
      err.println("error: cannot publish KV events: " + e.getMessage());
      vertx.close();
      return OptionalInt.of(1);
    }
    Future<WorkerServer> server =
        TcpTransport.server(
            vertx, host, port, Map.of(WorkerEndpoint.DEFAULT_PATH, engine), queryEndpoints, tcp);
    Future<?> system =
        systemPort == null ? Future.succeededFuture() : serveSystemPort(vertx, metrics, ranks);
    try {
      WorkerServer started =
          Future.all(server, system)
              .map(v -> server.result())
              .toCompletionStage()
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
      spec.commandLine()
          .getOut()
          .printf(
              "kvrouter worker ready: model %s on tcp://%s:%d/%s%n",
              modelName, host, started.port(), WorkerEndpoint.DEFAULT_PATH);
      spec.commandLine().getOut().flush();
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    for (AutoCloseable publisher : publishers) {
                      try {
                        publisher.close();
                      } catch (Exception e) {
                        err.println("warning: closing an event publisher failed: " + e);
                      }
                    }
                    started
                        .close()
                        .transform(v -> vertx.close())
                        .toCompletionStage()
                        .toCompletableFuture()
                        .orTimeout(10, TimeUnit.SECONDS)
                        .join();
                  },
                  "kvrouter-worker-shutdown"));
      return OptionalInt.empty();
    } catch (Exception e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      err.println("error: the worker could not start: " + cause.getMessage());
      publishers.forEach(WorkerCommand::closeQuietly);
      vertx.close();
      return OptionalInt.of(1);
    }
  }

  /** One vLLM publisher per rank, rank r on the base ports + r (vLLM's data-parallel offsets). */
  private List<AutoCloseable> publishKvEvents(List<SimulatedEngine> ranks) {
    String bindHost = zmqBindHost();
    List<AutoCloseable> publishers = new ArrayList<>();
    try {
      for (int dp = 0; dp < ranks.size(); dp++) {
        ZmqEventPublisher publisher =
            SimulatedWorkerEvents.publish(
                ranks.get(dp),
                new ZmqEventPublisher.Options(
                    bindHost,
                    kvEventsPort == 0 ? 0 : kvEventsPort + dp,
                    kvReplayPort == null ? -1 : kvReplayPort == 0 ? 0 : kvReplayPort + dp,
                    "",
                    10_000,
                    kvEventsEncoding.equals("map")
                        ? VllmEventCodec.Encoding.MAP
                        : VllmEventCodec.Encoding.ARRAY,
                    dp,
                    kvEventsDropRate,
                    System.nanoTime()));
        publishers.add(publisher);
        if (dp == 0) {
          spec.commandLine()
              .getOut()
              .printf(
                  "kvrouter worker kv events: tcp://%s:%d%s%n",
                  host,
                  publisher.port(),
                  publisher.replayPort() < 0
                      ? ""
                      : ", replay tcp://" + host + ":" + publisher.replayPort());
        }
      }
    } catch (RuntimeException e) {
      publishers.forEach(WorkerCommand::closeQuietly);
      throw e;
    }
    return publishers;
  }

  /** The address ZeroMQ binds for {@code --host}: {@code *} for every interface. */
  private String zmqBindHost() {
    return host.equals("0.0.0.0") ? "*" : host;
  }

  private static void closeQuietly(AutoCloseable closeable) {
    try {
      closeable.close();
    } catch (Exception e) {
      // closing on the way out of a failed start: the first error is the one to report
    }
  }

  private DynamoWorkerEvents publishDynamo(List<SimulatedEngine> ranks, DynamoEventSink sink) {
    DynamoWorkerEvents events =
        DynamoWorkerEvents.start(ranks, workerId, sink, Duration.ofMillis(100), kvEventsDropRate);
    spec.commandLine()
        .getOut()
        .printf("kvrouter worker kv events: %s as worker %s%n", events.describe(), workerId);
    return events;
  }

  /** Options not given on the command line come from their Dynamo variables. */
  private void fillFromEnvironment(Map<String, String> env) {
    if (host == null) {
      host = env.getOrDefault("DYN_TCP_RPC_HOST", "0.0.0.0");
    }
    if (port == null && env.containsKey("DYN_TCP_RPC_PORT")) {
      port = integer(env.get("DYN_TCP_RPC_PORT"), "DYN_TCP_RPC_PORT");
    }
    if (eventPlane == null) {
      eventPlane = env.getOrDefault("DYN_EVENT_PLANE", "zmq");
    }
    if (natsServer == null) {
      natsServer = env.getOrDefault("NATS_SERVER", NatsSubjects.DEFAULT_SERVER);
    }
    if (namespace == null) {
      namespace = env.getOrDefault("DYN_NAMESPACE", "dynamo");
    }
    if (workerId == null) {
      workerId = Long.toString(new java.security.SecureRandom().nextLong() & Long.MAX_VALUE);
    }
    if (kvEventsFormat == null && (eventPlane.equals("zmq") || eventPlane.equals("nats"))) {
      kvEventsFormat = eventPlane.equals("nats") ? "dynamo" : "vllm";
    }
    if (systemPort == null && env.containsKey("DYN_SYSTEM_PORT")) {
      systemPort = integer(env.get("DYN_SYSTEM_PORT"), "DYN_SYSTEM_PORT");
    }
  }

  private static TcpConfig tcpConfig(Map<String, String> env) {
    Setting<Integer> maxSize = Settings.TCP_MAX_MESSAGE_SIZE;
    String raw = env.get(maxSize.envVar());
    if (raw == null) {
      return TcpConfig.defaults("127.0.0.1");
    }
    try {
      TcpConfig defaults = TcpConfig.defaults("127.0.0.1");
      return new TcpConfig(
          maxSize.parse(raw),
          defaults.requestTimeout(),
          defaults.poolSize(),
          defaults.connectTimeout(),
          defaults.responseStreamHost(),
          0,
          null);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "Invalid value '"
              + raw
              + "' for "
              + maxSize.envVar()
              + ": expected "
              + maxSize.expected());
    }
  }

  private static int integer(String raw, String variable) {
    try {
      return Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "Invalid value '" + raw + "' for " + variable + ": expected an integer from 0 to 65535");
    }
  }

  private String validate() {
    if (port == null) {
      return "--port is required (or set DYN_TCP_RPC_PORT)";
    }
    if (port < 0 || port > 65535) {
      return "Invalid value '" + port + "' for --port: expected an integer from 0 to 65535";
    }
    if (systemPort != null && (systemPort < 0 || systemPort > 65535)) {
      return "Invalid value '" + systemPort + "' for --system-port: expected 0 to 65535";
    }
    if (ttftMs < 0 || itlMs < 0) {
      return "--ttft-ms and --itl-ms must be 0 or more";
    }
    if (!timingModel.equals("fixed") && !timingModel.equals("mocker")) {
      return "Invalid value '" + timingModel + "' for --timing-model: expected fixed or mocker";
    }
    ParseResult parsed = spec.commandLine().getParseResult();
    if (timingModel.equals("mocker")
        && (parsed.hasMatchedOption("--ttft-ms") || parsed.hasMatchedOption("--itl-ms"))) {
      return "--ttft-ms and --itl-ms are for --timing-model fixed; the mocker model times"
          + " requests itself (use --speedup-ratio)";
    }
    if (timingModel.equals("fixed")) {
      for (String option :
          List.of("--speedup-ratio", "--max-num-seqs", "--max-num-batched-tokens", "--watermark")) {
        if (parsed.hasMatchedOption(option)) {
          return option + " is for --timing-model mocker";
        }
      }
    }
    if (blockSize < 1 || blockSize > 1024) {
      return "Invalid value '"
          + blockSize
          + "' for --block-size: expected an integer from 1 to 1024";
    }
    if (numGpuBlocks < 1 || numGpuBlocks > 1_000_000_000) {
      return "Invalid value '"
          + numGpuBlocks
          + "' for --num-gpu-blocks: expected an integer from 1 to 1000000000";
    }
    if (kvEventsPort != null && (kvEventsPort < 0 || kvEventsPort > 65535)) {
      return "Invalid value '" + kvEventsPort + "' for --kv-events-port: expected 0 to 65535";
    }
    if (kvReplayPort != null && (kvReplayPort < 0 || kvReplayPort > 65535)) {
      return "Invalid value '" + kvReplayPort + "' for --kv-replay-port: expected 0 to 65535";
    }
    if (dataParallelSize < 1 || dataParallelSize > 256) {
      return "Invalid value '"
          + dataParallelSize
          + "' for --data-parallel-size: expected an"
          + " integer from 1 to 256";
    }
    boolean dynamoOnZmq = eventPlane.equals("zmq") && "dynamo".equals(kvEventsFormat);
    if (dataParallelSize > 1
        && !dynamoOnZmq
        && ((kvEventsPort != null && kvEventsPort == 0)
            || (kvReplayPort != null && kvReplayPort == 0))) {
      return "--data-parallel-size above 1 needs fixed --kv-events-port and --kv-replay-port"
          + " (rank r uses the port + r)";
    }
    if (kvEventsPort != null && !dynamoOnZmq && kvEventsPort + dataParallelSize - 1 > 65535) {
      return "--kv-events-port + --data-parallel-size - 1 is above 65535";
    }
    if (kvReplayPort != null && kvReplayPort + dataParallelSize - 1 > 65535) {
      return "--kv-replay-port + --data-parallel-size - 1 is above 65535";
    }
    if (kvReplayPort != null && kvEventsPort == null) {
      return "--kv-replay-port needs --kv-events-port";
    }
    if (!kvEventsEncoding.equals("map") && !kvEventsEncoding.equals("array")) {
      return "Invalid value '"
          + kvEventsEncoding
          + "' for --vllm-encoding: expected map"
          + " or array";
    }
    if (!(kvEventsDropRate >= 0 && kvEventsDropRate <= 0.99)) {
      return "Invalid value '"
          + kvEventsDropRate
          + "' for --kv-events-drop-rate: expected a"
          + " number from 0 to 0.99";
    }
    if (!eventPlane.equals("zmq") && !eventPlane.equals("nats")) {
      return "Invalid value '" + eventPlane + "' for --event-plane: expected zmq or nats";
    }
    if (!kvEventsFormat.equals("vllm") && !kvEventsFormat.equals("dynamo")) {
      return "Invalid value '"
          + kvEventsFormat
          + "' for --kv-events-format: expected vllm or"
          + " dynamo";
    }
    if (dynamoOnZmq && kvEventsPort == null) {
      return "--kv-events-format dynamo on --event-plane zmq needs --kv-events-port";
    }
    if (dynamoOnZmq && kvReplayPort != null) {
      return "--kv-replay-port is vLLM's replay socket; with --kv-events-format dynamo the router"
          + " asks the worker over the request plane instead";
    }
    if (kvMetricsPort != null && !dynamoOnZmq) {
      return "--kv-metrics-port is for --kv-events-format dynamo on --event-plane zmq";
    }
    if (kvMetricsPort != null && (kvMetricsPort < 0 || kvMetricsPort > 65535)) {
      return "Invalid value '" + kvMetricsPort + "' for --kv-metrics-port: expected 0 to 65535";
    }
    if (eventPlane.equals("nats") && kvEventsFormat.equals("vllm")) {
      return "--event-plane nats carries --kv-events-format dynamo, not vllm";
    }
    if (eventPlane.equals("nats") && (kvEventsPort != null || kvReplayPort != null)) {
      return "--kv-events-port and --kv-replay-port are for --event-plane zmq";
    }
    if (!eventPlane.equals("nats") && durableKvEvents) {
      return "--durable-kv-events needs --event-plane nats";
    }
    try {
      DynamoEventCodec.workerIdToU64(workerId);
    } catch (IllegalArgumentException e) {
      return "Invalid value '"
          + workerId
          + "' for --worker-id: expected a decimal integer from 0"
          + " to 18446744073709551615 without leading zeros";
    }
    if (!NatsSubjects.isToken(namespace) || !NatsSubjects.isToken(component)) {
      return "--namespace and --component must be non-empty NATS subject tokens (no '.', '*',"
          + " '>' or spaces)";
    }
    return null;
  }

  private Future<?> serveSystemPort(Vertx vertx, Metrics metrics, List<SimulatedEngine> ranks) {
    return vertx
        .createHttpServer()
        .requestHandler(
            request -> {
              switch (request.path()) {
                case "/metrics" ->
                    request
                        .response()
                        .putHeader("content-type", "text/plain; version=0.0.4; charset=utf-8")
                        .end(metrics.scrape());
                case "/kv/state" -> {
                  // ?dp_rank=R picks a data-parallel rank's cache; rank 0 by default
                  String raw = request.getParam("dp_rank", "0");
                  int dp;
                  try {
                    dp = Integer.parseInt(raw);
                  } catch (NumberFormatException e) {
                    dp = -1;
                  }
                  if (dp < 0 || dp >= ranks.size()) {
                    request
                        .response()
                        .setStatusCode(400)
                        .end("dp_rank must be from 0 to " + (ranks.size() - 1) + ", not " + raw);
                  } else {
                    request
                        .response()
                        .putHeader("content-type", "application/json")
                        .end(
                            SimulatedWorkerEvents.stateJson(ranks.get(dp).kvCache().snapshot())
                                .encode());
                  }
                }
                case "/health" ->
                    request
                        .response()
                        .putHeader("content-type", "application/json")
                        .end(
                            new JsonObject()
                                .put("status", "ready")
                                .put(
                                    "active_requests",
                                    ranks.stream().mapToInt(SimulatedEngine::activeRequests).sum())
                                .encode());
                default -> request.response().setStatusCode(404).end();
              }
            })
        .listen(systemPort, host)
        .onSuccess(
            s ->
                spec.commandLine()
                    .getOut()
                    .printf("kvrouter worker system port: http://%s:%d%n", host, s.actualPort()));
  }
}
