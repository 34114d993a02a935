package io.kvrouter.config;

import static io.kvrouter.config.Settings.*;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Builds a {@link RouterConfig} from its sources ({@link SettingValues}: flag, then environment
 * variable, then the YAML file, then the default) and checks the settings against each other. An
 * invalid value or combination fails with a {@link ConfigException} naming the setting; nothing
 * falls back silently. {@link WorkerConfigLoader} does the same for {@code router.jar worker}.
 */
public final class ConfigLoader {
  private final SettingValues sources;

  private ConfigLoader(SettingValues sources) {
    this.sources = sources;
  }

  /**
   * @param flags raw flag values by setting name (as given on the command line)
   * @param env the process environment
   * @param configFile the YAML file of {@code --config}, or {@code null}
   */
  public static RouterConfig load(
      Map<String, List<String>> flags, Map<String, String> env, Path configFile) {
    return new ConfigLoader(SettingValues.of(flags, env, configFile, Settings.ALL)).build();
  }

  private RouterConfig build() {
    String httpHost = value(HTTP_HOST);
    HttpConfig http =
        new HttpConfig(
            httpHost,
            value(HTTP_PORT),
            value(HTTP_BODY_LIMIT_MB) * 1024L * 1024L,
            value(HTTP_GRACEFUL_SHUTDOWN_TIMEOUT),
            value(BUSY_STATUS_CODE),
            new ConnectionLimits(
                value(HTTP_IDLE_TIMEOUT),
                value(HTTP_HEADER_TIMEOUT),
                value(HTTP_BODY_TIMEOUT),
                value(HTTP_MAX_CONNECTIONS)),
            tls(),
            cors());
    String responseStreamHost = value(TCP_RESPONSE_STREAM_HOST);
    TcpConfig tcp =
        new TcpConfig(
            value(TCP_MAX_MESSAGE_SIZE),
            value(TCP_REQUEST_TIMEOUT),
            value(TCP_POOL_SIZE),
            value(TCP_CONNECT_TIMEOUT),
            responseStreamHost == null ? httpHost : responseStreamHost,
            value(TCP_RESPONSE_STREAM_PORT),
            value(TCP_RESPONSE_STREAM_ADVERTISE_HOST));
    List<WorkerSpec> workers = values(WORKER);
    Map<String, ResponseStreamKind> responseStreams = new HashMap<>();
    for (WorkerSpec worker : workers) {
      worker.responseStream().ifPresent(kind -> responseStreams.put(worker.id(), kind));
    }
    tcp =
        tcp.withResponseStreams(
                new ResponseStreams(
                    value(TCP_RESPONSE_MUX) ? ResponseStreamKind.MUX : ResponseStreamKind.CALL_HOME,
                    responseStreams))
            .withTls(TransportSecuritySettings.tcpTls(sources));
    MockWorkerConfig mock =
        new MockWorkerConfig(
            value(MOCK_WORKERS), EngineKnobs.MOCK.read(sources, value(KV_CACHE_BLOCK_SIZE), 1));
    RouterDiscovery discovery = discovery(workers, mock);
    if (discovery.backend() == DiscoveryBackend.STATIC && workers.isEmpty() && mock.count() == 0) {
      throw new ConfigException(
          "No workers: give --worker id=ID,address=HOST:PORT (once per worker) or"
              + " --mock-workers N");
    }
    Set<String> ids = new HashSet<>();
    for (WorkerSpec worker : workers) {
      if (!ids.add(worker.id())) {
        throw new ConfigException("Duplicate worker id '" + worker.id() + "' in --worker");
      }
    }
    ModelLocation location = sources.modelLocation(MODEL_PATH);
    Path modelPath = location == null ? null : location.folder();
    String servedName = value(SERVED_MODEL_NAME);
    if (servedName == null) {
      servedName =
          location == null || location.defaultServedName() == null
              ? ModelConfig.DEMO_MODEL_NAME
              : location.defaultServedName();
    }
    ModelConfig model =
        new ModelConfig(
            modelPath,
            servedName,
            value(KV_CACHE_BLOCK_SIZE),
            value(REASONING_PARSER),
            value(TOOL_CALL_PARSER),
            value(CONTEXT_LENGTH));
    RouterMode mode = value(ROUTER_MODE);
    KvRouterConfig kv = kvRouter(mode);
    EventPlaneConfig eventPlane =
        new EventPlaneConfig(
            value(EVENT_PLANE),
            TransportSecuritySettings.nats(sources, value(NATS_SERVER)),
            value(NAMESPACE),
            value(COMPONENT),
            value(ENDPOINT),
            value(NATS_EVENT_FORMAT),
            value(DURABLE_KV_EVENTS),
            value(DURABLE_CONSUMER),
            value(KV_EVENTS_MAX_MESSAGE_BYTES),
            kafka(sources));
    checkDurable(eventPlane);
    checkKafkaTopics(
        eventPlane.kind(), eventPlane.namespace(), eventPlane.component(), eventPlane.endpoint());
    if (mode == RouterMode.KV && kv.kvEvents()) {
      checkEventSources(eventPlane.kind(), workers, mock);
    }
    checkRequestPlane(value(REQUEST_PLANE), workers, mock);
    return new RouterConfig(
        http,
        apiKeys(),
        mode,
        kv,
        eventPlane,
        value(REQUEST_PLANE),
        tcp,
        value(WORKER_STREAM_IDLE_TIMEOUT),
        value(MIGRATION_LIMIT),
        replicaSync(mode, workers, mock),
        indexSnapshots(mode, kv, eventPlane),
        workers,
        mock,
        model,
        discovery,
        TransportSecuritySettings.engineTls(sources),
        new HttpRpcClientConfig(value(HTTP_RPC_REQUEST_TIMEOUT), value(HTTP_RPC_PRIOR_KNOWLEDGE)));
  }

  /**
   * Where workers are found. With a store, workers and models come only from it: a {@code
   * --worker}, {@code --mock-workers} or model setting given as well would be ignored, so it is an
   * error instead.
   */
  private RouterDiscovery discovery(List<WorkerSpec> workers, MockWorkerConfig mock) {
    DiscoveryBackend backend = value(DiscoverySettings.ROUTER_DISCOVERY_BACKEND);
    String selector = value(DiscoverySettings.WORKER_SELECTOR);
    if (backend != DiscoveryBackend.KUBERNETES || selector == null) {
      for (Setting<?> podSetting :
          List.of(
              DiscoverySettings.WORKER_SELECTOR,
              DiscoverySettings.WORKER_PORT,
              DiscoverySettings.POD_KV_EVENTS_PORT,
              DiscoverySettings.POD_KV_REPLAY_PORT)) {
        if (sources.given(podSetting)) {
          throw new ConfigException(
              podSetting.flag()
                  + " is for plain engines found as Kubernetes pods: it needs "
                  + DiscoverySettings.ROUTER_DISCOVERY_BACKEND.flag()
                  + " kubernetes and "
                  + DiscoverySettings.WORKER_SELECTOR.flag());
        }
      }
    }
    if (backend == DiscoveryBackend.STATIC) {
      return RouterDiscovery.STATIC;
    }
    String found = DiscoverySettings.ROUTER_DISCOVERY_BACKEND.flag() + " " + backend.configName();
    if (!workers.isEmpty() || mock.count() > 0) {
      throw new ConfigException(
          (workers.isEmpty() ? MOCK_WORKERS : WORKER).flag()
              + " cannot be given with "
              + found
              + ": the workers are then the ones found there");
    }
    if (selector != null) {
      return podDiscovery(selector);
    }
    for (Setting<?> perModel : List.of(MODEL_PATH, SERVED_MODEL_NAME, KV_CACHE_BLOCK_SIZE)) {
      if (sources.given(perModel)) {
        throw new ConfigException(
            perModel.flag()
                + " cannot be given with "
                + found
                + ": each model's name, files and KV block size come from its model card");
      }
    }
    return new RouterDiscovery(
        backend,
        backend == DiscoveryBackend.ETCD
            ? Optional.of(DiscoverySettings.etcd(sources))
            : Optional.empty(),
        backend == DiscoveryBackend.KUBERNETES
            ? Optional.of(DiscoverySettings.kube(sources))
            : Optional.empty(),
        sources.given(NAMESPACE) ? Optional.of(value(NAMESPACE)) : Optional.empty(),
        Optional.empty());
  }

  /**
   * Plain engines as pods: the router serves its own model; in kv mode with events every pod must
   * publish them, so the events port is required.
   */
  private RouterDiscovery podDiscovery(String selector) {
    Integer events = value(DiscoverySettings.POD_KV_EVENTS_PORT);
    Integer replay = value(DiscoverySettings.POD_KV_REPLAY_PORT);
    if (value(ROUTER_MODE) == RouterMode.KV && value(KV_EVENTS) && events == null) {
      throw new ConfigException(
          "--router-mode kv follows each pod's KV events: give "
              + DiscoverySettings.POD_KV_EVENTS_PORT.flag()
              + " (the engines' --kv-events-config port), or run with --no-kv-events");
    }
    if (replay != null && events == null) {
      throw new ConfigException(
          DiscoverySettings.POD_KV_REPLAY_PORT.flag()
              + " needs "
              + DiscoverySettings.POD_KV_EVENTS_PORT.flag());
    }
    return new RouterDiscovery(
        DiscoveryBackend.KUBERNETES,
        Optional.empty(),
        Optional.of(DiscoverySettings.kube(sources)),
        Optional.empty(),
        Optional.of(
            new PodWorkers(
                selector,
                value(DiscoverySettings.WORKER_PORT),
                events == null ? OptionalInt.empty() : OptionalInt.of(events),
                replay == null ? OptionalInt.empty() : OptionalInt.of(replay))));
  }

  /**
   * JetStream carries only Dynamo v1.4's JSON events: Dynamo v1.5 workers publish envelopes on core
   * NATS and keep their events in their local indexer, so a durable consumer would wait for
   * nothing.
   */
  static void checkDurable(EventPlaneConfig eventPlane) {
    if (eventPlane.durable() && eventPlane.kind() != EventPlaneKind.NATS) {
      throw new ConfigException(
          DURABLE_KV_EVENTS.flag()
              + " follows a NATS JetStream stream: it needs --event-plane nats");
    }
    if (eventPlane.durable() && eventPlane.natsFormat() == NatsEventFormat.ENVELOPE) {
      throw new ConfigException(
          DURABLE_KV_EVENTS.flag()
              + " follows a JetStream stream, which Dynamo workers stopped publishing to in v1.5:"
              + " with v1.5 or later workers drop it (the router recovers missed events from each"
              + " worker's local indexer); with v1.4 or earlier workers add "
              + NATS_EVENT_FORMAT.flag()
              + " json");
    }
  }

  /** Every worker can be reached on the request plane {@code kind}. */
  private static void checkRequestPlane(
      RequestPlaneKind kind, List<WorkerSpec> workers, MockWorkerConfig mock) {
    for (WorkerSpec worker : workers) {
      if (worker.isHttp()) {
        continue; // a plain engine is sent its requests over HTTP whatever the plane
      }
      if (kind == RequestPlaneKind.NATS && worker.instance() == null) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' has no instance=: on --request-plane nats each --worker needs its Dynamo"
                + " instance id in hex (instance=HEX), the last part of its NATS subject");
      }
      if (kind == RequestPlaneKind.NATS && worker.path().contains("/")) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' has the path "
                + worker.path()
                + ": on --request-plane nats the endpoint is one name (generate, or endpoint=NAME)");
      }
      if (kind != RequestPlaneKind.NATS && !worker.hasAddress()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' has no address=: --request-plane "
                + kind.configName()
                + " reaches --worker entries over TCP at HOST:PORT (use --request-plane nats for"
                + " instance= alone)");
      }
    }
    if (kind == RequestPlaneKind.NATS && mock.count() > 0) {
      throw new ConfigException(
          "--mock-workers serve the TCP request plane only: use --request-plane tcp with them, or"
              + " run worker processes (router.jar worker --request-plane nats) for nats");
    }
  }

  /** Every worker can be followed on the event plane {@code kind}. */
  private static void checkEventSources(
      EventPlaneKind kind, List<WorkerSpec> workers, MockWorkerConfig mock) {
    // NATS and Kafka carry Dynamo's events, which name workers by number, for every worker at once
    boolean shared = kind != EventPlaneKind.ZMQ;
    String plane = "--event-plane " + kind.configName();
    for (WorkerSpec worker : workers) {
      if (shared && worker.isHttp()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' is a plain engine (url=), which publishes vLLM's KV events on ZMQ: use"
                + " --event-plane zmq with kv-events=tcp://HOST:PORT, or --no-kv-events");
      }
      if (!shared && worker.kvEvents().isEmpty()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' publishes no KV events: give it"
                + " kv-events=tcp://HOST:PORT in --worker, use --event-plane nats or kafka, or run"
                + " with --no-kv-events (approximate mode)");
      }
      if (shared && worker.kvEvents().isPresent()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' has kv-events=, a ZMQ endpoint, but the plane is "
                + plane
                + ": drop kv-events/kv-replay or use --event-plane zmq");
      }
      boolean dynamoOverZmq =
          worker.kvEvents().map(e -> e.format() == KvEventsFormat.DYNAMO).orElse(false);
      if ((shared || dynamoOverZmq) && !Parsers.isDynamoWorkerId(worker.id())) {
        throw new ConfigException(
            "Worker id '"
                + worker.id()
                + "' cannot name a worker "
                + (dynamoOverZmq ? "with events-format=dynamo" : "on " + plane)
                + ": Dynamo's KV events carry a numeric worker_id, so give the worker's id as a"
                + " decimal integer (its --worker-id)");
      }
    }
    if (shared && mock.count() > 0) {
      throw new ConfigException(
          "--mock-workers publish their KV events on ZMQ: use --event-plane zmq with them, or run"
              + " worker processes (router.jar worker "
              + plane
              + ") for "
              + kind.configName());
    }
  }

  /** {@code --tls-cert-path} and {@code --tls-key-path}, given together, both readable. */
  /** The origins of every {@code --allowed-origins}; '*' only alone. */
  private CorsOrigins cors() {
    List<String> origins = values(ALLOWED_ORIGINS).stream().flatMap(List::stream).toList();
    try {
      return new CorsOrigins(origins);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(ALLOWED_ORIGINS.flag() + ": " + e.getMessage());
    }
  }

  private TlsFiles tls() {
    java.nio.file.Path cert = value(TLS_CERT_PATH);
    java.nio.file.Path key = value(TLS_KEY_PATH);
    if (cert == null && key == null) {
      return null;
    }
    TransportSecuritySettings.pair(TLS_CERT_PATH, cert, TLS_KEY_PATH, key);
    return new TlsFiles(
        TransportSecuritySettings.readable(sources, TLS_CERT_PATH),
        TransportSecuritySettings.readable(sources, TLS_KEY_PATH));
  }

  /**
   * The API keys: the file must parse now (a router that would refuse every client should not
   * start), and the admin key must not also be a client key.
   */
  private ApiKeyConfig apiKeys() {
    List<ApiKey> keys = values(API_KEY).stream().map(ApiKey::unnamed).toList();
    java.nio.file.Path file = value(API_KEYS_FILE);
    String admin = value(ADMIN_API_KEY);
    List<ApiKey> fileKeys = List.of();
    if (file != null) {
      try {
        fileKeys = ApiKeyFile.read(file);
      } catch (java.io.IOException e) {
        throw new ConfigException(
            API_KEYS_FILE.flag() + " " + file + " cannot be read: " + e.getMessage());
      } catch (IllegalArgumentException e) {
        throw new ConfigException(API_KEYS_FILE.flag() + ": " + e.getMessage());
      }
    }
    RateLimits limits =
        new RateLimits(
            value(RATE_LIMIT_REQUESTS_PER_MINUTE),
            value(RATE_LIMIT_TOKENS_PER_MINUTE),
            value(MAX_CONCURRENT_REQUESTS_PER_KEY));
    boolean perKey = value(CACHE_SALT_PER_KEY);
    if (perKey && keys.isEmpty() && file == null) {
      throw new ConfigException(
          CACHE_SALT_PER_KEY.flag()
              + " makes every API key its own cache tenant, so it needs keys: give "
              + API_KEY.flag()
              + " or "
              + API_KEYS_FILE.flag());
    }
    ApiKeyConfig config = new ApiKeyConfig(keys, file, fileKeys, admin, limits, perKey);
    try {
      config.clientKeys(fileKeys);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          API_KEY.flag()
              + ", "
              + API_KEYS_FILE.flag()
              + ", "
              + ADMIN_API_KEY.flag()
              + ": "
              + e.getMessage());
    }
    return config;
  }

  /**
   * {@code --router-index-snapshots} snapshots the index a KV event follower keeps, where the nats
   * or kafka plane keeps things; the threshold means nothing without it, and a reset asked for
   * without it is refused.
   */
  private IndexSnapshotConfig indexSnapshots(
      RouterMode mode, KvRouterConfig kv, EventPlaneConfig events) {
    boolean enabled = value(ROUTER_INDEX_SNAPSHOTS);
    String flag = ROUTER_INDEX_SNAPSHOTS.flag();
    if (!enabled) {
      // Dynamo's deployments may set the threshold (its JetStream mode's): without snapshots it
      // means nothing, but asking for a reset of snapshots that are off is a mistake
      if (value(ROUTER_RESET_STATES)) {
        throw new ConfigException(
            ROUTER_RESET_STATES.flag() + " resets index snapshots: it needs " + flag);
      }
      return IndexSnapshotConfig.OFF;
    }
    if (mode != RouterMode.KV || !kv.kvEvents()) {
      throw new ConfigException(
          flag
              + " needs --router-mode kv with KV events: only the index the workers' events"
              + " build is worth keeping");
    }
    if (events.kind() == EventPlaneKind.ZMQ) {
      throw new ConfigException(
          flag
              + " keeps the snapshot where the event plane keeps things: it needs --event-plane"
              + " nats (with JetStream) or kafka");
    }
    return new IndexSnapshotConfig(
        true, value(ROUTER_SNAPSHOT_THRESHOLD), value(ROUTER_RESET_STATES));
  }

  /**
   * {@code --router-replica-sync} shares the books only the KV router keeps, of workers other
   * routers reach too, named on the wire by Dynamo's numeric worker ids.
   */
  private boolean replicaSync(RouterMode mode, List<WorkerSpec> workers, MockWorkerConfig mock) {
    boolean sync = value(ROUTER_REPLICA_SYNC);
    if (!sync) {
      return false;
    }
    String flag = ROUTER_REPLICA_SYNC.flag();
    if (!mode.usesKvCost()) {
      throw new ConfigException(
          flag
              + " needs --router-mode kv or approx: only the KV router books the requests in"
              + " flight it would share");
    }
    if (mock.count() > 0) {
      throw new ConfigException(
          flag
              + " shares the load of workers several routers send to; --mock-workers run inside"
              + " this router and no other router reaches them. Start the simulated workers on"
              + " their own (router.jar worker) and give each router --worker");
    }
    for (WorkerSpec worker : workers) {
      if (!Parsers.isDynamoWorkerId(worker.id())) {
        throw new ConfigException(
            "Worker id '"
                + worker.id()
                + "' cannot be shared with "
                + flag
                + ": the fleet's routers name workers by Dynamo's numeric worker ids (an unsigned"
                + " decimal, like id=7587889768449523845)");
      }
    }
    return true;
  }

  private KvRouterConfig kvRouter(RouterMode mode) {
    Double decodeBlocks = value(ACTIVE_DECODE_BLOCKS_THRESHOLD);
    Long prefillTokens = value(ACTIVE_PREFILL_TOKENS_THRESHOLD);
    if (!mode.usesKvCost() && (decodeBlocks != null || prefillTokens != null)) {
      throw new ConfigException(
          (decodeBlocks != null ? ACTIVE_DECODE_BLOCKS_THRESHOLD : ACTIVE_PREFILL_TOKENS_THRESHOLD)
                  .flag()
              + " needs --router-mode kv or approx: only the KV router predicts each worker's"
              + " load");
    }
    return new KvRouterConfig(
        value(KV_EVENTS),
        value(KV_OVERLAP_SCORE_WEIGHT),
        value(ROUTER_TEMPERATURE),
        decodeBlocks == null ? OptionalDouble.empty() : OptionalDouble.of(decodeBlocks),
        prefillTokens == null ? OptionalLong.empty() : OptionalLong.of(prefillTokens),
        value(ROUTER_TTL),
        value(ROUTER_MAX_TREE_SIZE),
        value(ROUTER_PRUNE_TARGET_RATIO),
        value(ROUTER_KV_COST));
  }

  /**
   * On the Kafka plane the namespace, component and endpoint name topics, which allow fewer
   * characters than NATS subjects: refused here rather than when the first event goes out.
   */
  static void checkKafkaTopics(
      EventPlaneKind kind, String namespace, String component, String endpoint) {
    if (kind != EventPlaneKind.KAFKA) {
      return;
    }
    checkTopicPart(NAMESPACE.flag(), namespace);
    checkTopicPart(COMPONENT.flag(), component);
    checkTopicPart(ENDPOINT.flag(), endpoint);
  }

  private static void checkTopicPart(String flag, String value) {
    if (!KafkaConfig.isTopicText(value)) {
      throw new ConfigException(
          flag
              + " '"
              + value
              + "' cannot be part of a Kafka topic name (--event-plane kafka): use letters,"
              + " digits, '.', '_' and '-'");
    }
  }

  /** The Kafka plane's settings, for routers and workers. */
  static KafkaConfig kafka(SettingValues values) {
    java.nio.file.Path clientConfig = values.value(KAFKA_CLIENT_CONFIG);
    if (clientConfig != null
        && !(java.nio.file.Files.isRegularFile(clientConfig)
            && java.nio.file.Files.isReadable(clientConfig))) {
      throw new ConfigException(
          KAFKA_CLIENT_CONFIG.flag() + ": no readable file at " + clientConfig.toAbsolutePath());
    }
    return new KafkaConfig(
        values.value(KAFKA_BOOTSTRAP_SERVERS),
        values.value(KAFKA_TOPIC_PREFIX),
        values.value(KAFKA_CLIENT_CONFIG));
  }

  private <T> T value(Setting<T> setting) {
    return sources.value(setting);
  }

  private <T> List<T> values(Setting<T> setting) {
    return sources.values(setting);
  }
}
