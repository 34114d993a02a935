package io.kvrouter.config;

import static io.kvrouter.config.Settings.*;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Builds a {@link RouterConfig} from its sources. For each setting the first source that has it
 * wins: command-line flag, then environment variable, then the YAML file, then the default. A value
 * that does not parse fails with a {@link ConfigException} naming the setting, where the value came
 * from and what is valid; nothing falls back silently.
 */
public final class ConfigLoader {
  private final Map<String, List<String>> flags;
  private final Map<String, String> env;
  private final Map<String, Object> file;
  private final String fileName;

  private ConfigLoader(
      Map<String, List<String>> flags,
      Map<String, String> env,
      Map<String, Object> file,
      String fileName) {
    this.flags = flags;
    this.env = env;
    this.file = file;
    this.fileName = fileName;
  }

  /**
   * @param flags raw flag values by setting name (as given on the command line)
   * @param env the process environment
   * @param configFile the YAML file of {@code --config}, or {@code null}
   */
  public static RouterConfig load(
      Map<String, List<String>> flags, Map<String, String> env, Path configFile) {
    Map<String, Object> file = configFile == null ? Map.of() : readYaml(configFile);
    String fileName = configFile == null ? null : configFile.toString();
    return new ConfigLoader(flags, env, file, fileName).build();
  }

  private RouterConfig build() {
    String httpHost = value(HTTP_HOST);
    HttpConfig http =
        new HttpConfig(
            httpHost,
            value(HTTP_PORT),
            value(HTTP_BODY_LIMIT_MB) * 1024L * 1024L,
            value(HTTP_GRACEFUL_SHUTDOWN_TIMEOUT),
            value(BUSY_STATUS_CODE));
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
    Double mockSpeedup = value(MOCK_SPEEDUP_RATIO);
    MockWorkerConfig mock =
        new MockWorkerConfig(
            value(MOCK_WORKERS),
            value(MOCK_TTFT_MS),
            value(MOCK_ITL_MS),
            value(MOCK_KV_BLOCKS),
            mockSpeedup == null ? OptionalDouble.empty() : OptionalDouble.of(mockSpeedup));
    if (workers.isEmpty() && mock.count() == 0) {
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
    ModelLocation location = modelLocation(value(MODEL_PATH));
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
            value(TOOL_CALL_PARSER));
    RouterMode mode = value(ROUTER_MODE);
    KvRouterConfig kv = kvRouter(mode);
    EventPlaneConfig eventPlane =
        new EventPlaneConfig(
            value(EVENT_PLANE),
            value(NATS_SERVER),
            value(NAMESPACE),
            value(COMPONENT),
            value(DURABLE_KV_EVENTS),
            value(DURABLE_CONSUMER));
    if (mode == RouterMode.KV && kv.kvEvents()) {
      checkEventSources(eventPlane.kind(), workers, mock);
    }
    return new RouterConfig(
        http, mode, kv, eventPlane, value(REQUEST_PLANE), tcp, workers, mock, model);
  }

  /** Every worker can be followed on the event plane {@code kind}. */
  private static void checkEventSources(
      EventPlaneKind kind, List<WorkerSpec> workers, MockWorkerConfig mock) {
    for (WorkerSpec worker : workers) {
      if (kind == EventPlaneKind.ZMQ && worker.kvEvents().isEmpty()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' publishes no KV events: give it"
                + " kv-events=tcp://HOST:PORT in --worker, use --event-plane nats, or run with"
                + " --no-kv-events (approximate mode)");
      }
      if (kind == EventPlaneKind.NATS && worker.kvEvents().isPresent()) {
        throw new ConfigException(
            "Worker '"
                + worker.id()
                + "' has kv-events=, a ZMQ endpoint, but --event-plane is"
                + " nats: drop kv-events/kv-replay or use --event-plane zmq");
      }
      boolean dynamoOverZmq =
          worker.kvEvents().map(e -> e.format() == KvEventsFormat.DYNAMO).orElse(false);
      if ((kind == EventPlaneKind.NATS || dynamoOverZmq) && !isDynamoWorkerId(worker.id())) {
        throw new ConfigException(
            "Worker id '"
                + worker.id()
                + "' cannot name a worker "
                + (dynamoOverZmq ? "with events-format=dynamo" : "on --event-plane nats")
                + ": Dynamo's KV events carry a numeric worker_id, so give the worker's id as a"
                + " decimal integer (its --worker-id)");
      }
    }
    if (kind == EventPlaneKind.NATS && mock.count() > 0) {
      throw new ConfigException(
          "--mock-workers publish their KV events on ZMQ: use --event-plane zmq with them, or run"
              + " worker processes (router.jar worker --event-plane nats) for nats");
    }
  }

  /** A canonical decimal u64, as Dynamo's worker ids are written. */
  private static boolean isDynamoWorkerId(String id) {
    try {
      return Long.toUnsignedString(Long.parseUnsignedLong(id)).equals(id);
    } catch (NumberFormatException e) {
      return false;
    }
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

  /** The single value of {@code setting}, or {@code null} when no source has it. */
  private ModelLocation modelLocation(String raw) {
    if (raw == null) {
      return null;
    }
    try {
      return ModelLocation.resolve(raw, env);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid value '" + raw + "' for " + MODEL_PATH.flag() + ": " + e.getMessage());
    }
  }

  private <T> T value(Setting<T> setting) {
    List<T> all = values(setting);
    return all.isEmpty() ? null : all.get(all.size() - 1);
  }

  private <T> List<T> values(Setting<T> setting) {
    List<String> fromFlags = flags.get(setting.name());
    if (fromFlags != null && !fromFlags.isEmpty()) {
      return parseAll(setting, fromFlags, "from " + setting.flag());
    }
    if (setting.envVar() != null && env.containsKey(setting.envVar())) {
      return parseAll(setting, List.of(env.get(setting.envVar())), "from " + setting.envVar());
    }
    if (file.containsKey(setting.name())) {
      return parseAll(setting, fileValues(setting), "from " + setting.name() + " in " + fileName);
    }
    if (setting.defaultValue() != null) {
      return parseAll(setting, List.of(setting.defaultValue()), "default");
    }
    return List.of();
  }

  private <T> List<T> parseAll(Setting<T> setting, List<String> raws, String source) {
    List<T> parsed = new ArrayList<>(raws.size());
    for (String raw : raws) {
      try {
        parsed.add(setting.parse(raw));
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            "Invalid value '"
                + raw
                + "' for "
                + setting.flag()
                + " ("
                + source
                + "): "
                + e.getMessage()
                + "; expected "
                + setting.expected());
      }
    }
    return parsed;
  }

  private List<String> fileValues(Setting<?> setting) {
    Object raw = file.get(setting.name());
    if (raw instanceof List<?> list) {
      if (!setting.repeatable()) {
        throw new ConfigException(
            setting.name() + " in " + fileName + " takes one value, not a list");
      }
      return list.stream().map(ConfigLoader::yamlScalar).collect(Collectors.toList());
    }
    return List.of(yamlScalar(raw));
  }

  /** A YAML value as the raw string a flag would carry; a map becomes {@code k=v,k=v}. */
  private static String yamlScalar(Object value) {
    if (value instanceof Map<?, ?> map) {
      return map.entrySet().stream()
          .map(e -> e.getKey() + "=" + e.getValue())
          .collect(Collectors.joining(","));
    }
    return String.valueOf(value);
  }

  private static Map<String, Object> readYaml(Path path) {
    Map<String, Object> values;
    try {
      ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
      JsonNode document = yaml.readTree(path.toFile());
      if (document == null || document.isMissingNode() || document.isNull()) {
        values = new LinkedHashMap<>(); // a file of comments only, like config/router.yaml
      } else if (document.isObject()) {
        @SuppressWarnings("unchecked")
        Map<String, Object> read = yaml.convertValue(document, Map.class);
        values = new LinkedHashMap<>(read);
      } else {
        throw new ConfigException(
            "Config file " + path + " must be a map of settings, not a " + document.getNodeType());
      }
    } catch (IOException e) {
      throw new ConfigException("Cannot read config file " + path + ": " + e.getMessage());
    }
    Set<String> known =
        Settings.ALL.stream().map(Setting::name).collect(Collectors.toCollection(HashSet::new));
    for (String key : values.keySet()) {
      if (!known.contains(key)) {
        throw new ConfigException(
            "Unknown key '"
                + key
                + "' in "
                + path
                + "; known keys: "
                + Settings.ALL.stream().map(Setting::name).collect(Collectors.joining(", ")));
      }
    }
    values.values().removeIf(v -> v == null);
    return values;
  }
}
