package io.kvrouter.config;

import io.kvrouter.common.PlainEngine;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A statically configured worker, written {@code
 * id=w1,address=HOST:PORT[/PATH][,kv-blocks=N][,dp-size=N][,kv-events=tcp://HOST:PORT[,kv-replay=tcp://HOST:PORT][,events-format=vllm|dynamo][,kv-metrics=tcp://HOST:PORT]][,codec=json|msgpack][,instance=HEX][,response-stream=call-home|mux]}.
 * The path is the opaque routing path of Dynamo's TCP address; it defaults to {@code generate}.
 * With {@code instance=} the address may be left out: the worker is then reached on the NATS
 * request plane only, its endpoint named {@code endpoint=} (default {@code generate}). With {@code
 * url=http(s)://HOST:PORT[/PATH]} instead of an address the worker is a plain engine's HTTP server
 * (a {@code vllm serve}), sent token ids on {@code /v1/completions}; its KV events, if any, are
 * vLLM's ({@code kv-events=}, {@code kv-replay=}).
 *
 * @param kvBlocks the KV capacity each data-parallel rank declares, 0 when not given
 * @param kvEvents where the worker publishes its KV cache events over ZMQ, if it does: in vLLM's
 *     format rank 0's endpoints (rank {@code r} publishes on the same ports plus {@code r}, as vLLM
 *     does); in Dynamo's, the one endpoint of every rank
 * @param dpSize its data-parallel ranks, 1 without data parallelism
 * @param codec the payload codec it advertises, JSON unless said
 * @param instance its Dynamo instance id in hex as in its NATS subject (the NATS request plane), or
 *     {@code null}
 * @param responseStream how the worker streams responses back, when its entry says; empty means the
 *     router-wide {@code --tcp-response-mux}
 * @param url a plain engine's base URL ({@code url=}), or {@code null} for a Dynamo worker
 * @param engine a plain engine's API ({@code engine=}, default vLLM's), or {@code null} for a
 *     Dynamo worker
 */
public record WorkerSpec(
    String id,
    String host,
    int port,
    String path,
    long kvBlocks,
    Optional<KvEventSource> kvEvents,
    int dpSize,
    RequestPlaneCodec codec,
    String instance,
    Optional<ResponseStreamKind> responseStream,
    URI url,
    PlainEngine engine) {

  static final String EXPECTED =
      "id=ID,address=HOST:PORT[/PATH][,kv-blocks=N][,dp-size=N][,kv-events=tcp://HOST:PORT"
          + "[,kv-replay=tcp://HOST:PORT][,events-format=vllm|dynamo][,kv-metrics=tcp://HOST:PORT]]"
          + "[,codec=json|msgpack][,instance=HEX[,endpoint=NAME]][,response-stream=call-home|mux]"
          + ", or id=ID,url=http[s]://HOST:PORT[/PATH][,engine=vllm|sglang][,kv-blocks=N][,dp-size=N]"
          + "[,kv-events=tcp://HOST:PORT[,kv-replay=tcp://HOST:PORT]] for a plain engine"
          + " (keys: id, address, url, engine, kv-blocks, dp-size, kv-events, kv-replay, events-format,"
          + " kv-metrics, codec, instance, endpoint, response-stream)";
  private static final Set<String> KEYS =
      Set.of(
          "id",
          "address",
          "url",
          "engine",
          "kv-blocks",
          "dp-size",
          "kv-events",
          "kv-replay",
          "events-format",
          "kv-metrics",
          "codec",
          "instance",
          "endpoint",
          "response-stream");

  /** The most data-parallel ranks one worker may declare. */
  public static final int MAX_DP_SIZE = 256;

  /**
   * A worker's ZMQ KV event publisher: its PUB endpoint, what it speaks, its replay (ROUTER)
   * endpoint or {@code null} when it has none (vLLM's format only), and the endpoint of its load
   * reports or {@code null} when not given (Dynamo's format only: a separate publisher of topic
   * {@code kv_metrics}).
   */
  public record KvEventSource(
      String endpoint, String replayEndpoint, KvEventsFormat format, String loadEndpoint) {
    public KvEventSource {
      Objects.requireNonNull(endpoint, "endpoint");
      Objects.requireNonNull(format, "format");
      if (format == KvEventsFormat.DYNAMO && replayEndpoint != null) {
        throw new IllegalArgumentException(
            "kv-replay is vLLM's replay socket; a worker with events-format=dynamo is asked over"
                + " the request plane instead");
      }
      if (format == KvEventsFormat.VLLM && loadEndpoint != null) {
        throw new IllegalArgumentException(
            "kv-metrics is Dynamo's load publisher: it needs events-format=dynamo");
      }
    }

    /** A vLLM publisher. */
    public KvEventSource(String endpoint, String replayEndpoint) {
      this(endpoint, replayEndpoint, KvEventsFormat.VLLM, null);
    }

    /** A Dynamo publisher, with its load publisher's endpoint or {@code null}. */
    public static KvEventSource dynamo(String endpoint, String loadEndpoint) {
      return new KvEventSource(endpoint, null, KvEventsFormat.DYNAMO, loadEndpoint);
    }

    public Optional<String> metricsEndpoint() {
      return Optional.ofNullable(loadEndpoint);
    }

    /**
     * The endpoints of data-parallel rank {@code dpRank}: vLLM binds rank {@code r}'s publisher and
     * replay socket on the base ports plus {@code r}.
     */
    public KvEventSource forRank(int dpRank) {
      return new KvEventSource(
          offsetPort(endpoint, dpRank),
          replayEndpoint == null ? null : offsetPort(replayEndpoint, dpRank),
          format,
          loadEndpoint);
    }

    private static String offsetPort(String endpoint, int offset) {
      int colon = endpoint.lastIndexOf(':');
      int port = Integer.parseInt(endpoint.substring(colon + 1)) + offset;
      return endpoint.substring(0, colon + 1) + port;
    }
  }

  public WorkerSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(kvEvents, "kvEvents");
    Objects.requireNonNull(codec, "codec");
    Objects.requireNonNull(responseStream, "responseStream");
    if (kvBlocks < 0) {
      throw new IllegalArgumentException("kv-blocks must be >= 0");
    }
    if (dpSize < 1 || dpSize > MAX_DP_SIZE) {
      throw new IllegalArgumentException("dp-size must be from 1 to " + MAX_DP_SIZE);
    }
  }

  /** A Dynamo worker. */
  public WorkerSpec(
      String id,
      String host,
      int port,
      String path,
      long kvBlocks,
      Optional<KvEventSource> kvEvents,
      int dpSize,
      RequestPlaneCodec codec,
      String instance,
      Optional<ResponseStreamKind> responseStream) {
    this(
        id,
        host,
        port,
        path,
        kvBlocks,
        kvEvents,
        dpSize,
        codec,
        instance,
        responseStream,
        null,
        null);
  }

  /** A worker reached over TCP, taking JSON. */
  public WorkerSpec(
      String id,
      String host,
      int port,
      String path,
      long kvBlocks,
      Optional<KvEventSource> kvEvents,
      int dpSize) {
    this(id, host, port, path, kvBlocks, kvEvents, dpSize, RequestPlaneCodec.JSON, null);
  }

  /** A worker that streams responses as the router-wide setting says. */
  public WorkerSpec(
      String id,
      String host,
      int port,
      String path,
      long kvBlocks,
      Optional<KvEventSource> kvEvents,
      int dpSize,
      RequestPlaneCodec codec,
      String instance) {
    this(id, host, port, path, kvBlocks, kvEvents, dpSize, codec, instance, Optional.empty());
  }

  /** A worker without a declared KV capacity, KV events or data parallelism. */
  public WorkerSpec(String id, String host, int port, String path) {
    this(id, host, port, path, 0, Optional.empty(), 1);
  }

  /** Whether it is a plain engine's HTTP server ({@code url=}). */
  public boolean isHttp() {
    return url != null;
  }

  /** Whether it has a TCP address: a worker given only by {@code instance=} has none. */
  public boolean hasAddress() {
    return port != 0;
  }

  /** Parses the {@code key=value,...} form; throws {@link IllegalArgumentException} if invalid. */
  public static WorkerSpec parse(String raw) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String part : raw.split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + part + "' is not key=value");
      }
      String key = part.substring(0, eq).trim();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown key '" + key + "'");
      }
      if (fields.put(key, part.substring(eq + 1).trim()) != null) {
        throw new IllegalArgumentException("key '" + key + "' given twice");
      }
    }
    String id = fields.get("id");
    String address = fields.get("address");
    String instance = fields.get("instance");
    if (instance != null && !instance.matches("[0-9a-f]{1,16}")) {
      throw new IllegalArgumentException(
          "instance '"
              + instance
              + "' is not a Dynamo instance id in lowercase hex (1 to 16 digits)");
    }
    if (address != null && address.isEmpty()) {
      address = null;
    }
    if (fields.containsKey("url")) {
      return parseHttp(id, fields);
    }
    if (id == null || id.isEmpty() || (address == null && instance == null)) {
      throw new IllegalArgumentException("id and address (or instance=, or url=) are required");
    }
    RequestPlaneCodec codec = RequestPlaneCodec.JSON;
    String codecName = fields.get("codec");
    if (codecName != null) {
      try {
        codec = Parsers.named(RequestPlaneCodec.class).apply(codecName);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "codec '" + codecName + "' is not " + Parsers.oneOf(RequestPlaneCodec.class));
      }
    }
    String endpoint = fields.get("endpoint");
    if (endpoint != null && (address != null || endpoint.isEmpty() || endpoint.contains("/"))) {
      throw new IllegalArgumentException(
          address != null
              ? "endpoint= names a NATS-only worker's endpoint: with address=, give it as /PATH"
              : "endpoint '" + endpoint + "' must be one name without '/'");
    }
    String host = "";
    int port = 0;
    String path = endpoint == null ? "generate" : endpoint;
    if (address != null) {
      int slash = address.indexOf('/');
      if (slash >= 0) {
        path = address.substring(slash + 1);
        address = address.substring(0, slash);
        if (path.isEmpty()) {
          throw new IllegalArgumentException("empty path after '/'");
        }
      }
      int colon = address.lastIndexOf(':');
      if (colon <= 0) {
        throw new IllegalArgumentException("address '" + address + "' has no port");
      }
      host = address.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      }
      port = Parsers.intInRange(address.substring(colon + 1), 1, 65535);
    }
    String kvBlocks = fields.get("kv-blocks");
    long blocks = 0;
    if (kvBlocks != null) {
      try {
        blocks = Parsers.longs(1, 1_000_000_000L).apply(kvBlocks);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "kv-blocks '" + kvBlocks + "' is not an integer from 1 to 1000000000");
      }
    }
    int dpSize = 1;
    String dp = fields.get("dp-size");
    if (dp != null) {
      try {
        dpSize = Parsers.intInRange(dp, 1, MAX_DP_SIZE);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "dp-size '" + dp + "' is not an integer from 1 to " + MAX_DP_SIZE);
      }
    }
    String events = fields.get("kv-events");
    String replay = fields.get("kv-replay");
    String format = fields.get("events-format");
    String metrics = fields.get("kv-metrics");
    for (String dependent : List.of("kv-replay", "events-format", "kv-metrics")) {
      if (events == null && fields.containsKey(dependent)) {
        throw new IllegalArgumentException(dependent + " needs kv-events");
      }
    }
    KvEventsFormat eventsFormat = KvEventsFormat.VLLM;
    if (format != null) {
      try {
        eventsFormat = Parsers.named(KvEventsFormat.class).apply(format);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "events-format '" + format + "' is not " + Parsers.oneOf(KvEventsFormat.class));
      }
    }
    Optional<KvEventSource> source =
        events == null
            ? Optional.empty()
            : Optional.of(
                new KvEventSource(
                    zmqEndpoint("kv-events", events),
                    replay == null ? null : zmqEndpoint("kv-replay", replay),
                    eventsFormat,
                    metrics == null ? null : zmqEndpoint("kv-metrics", metrics)));
    if (source.isPresent() && eventsFormat == KvEventsFormat.VLLM) {
      checkRankPorts("kv-events", source.get().endpoint(), dpSize);
      if (source.get().replayEndpoint() != null) {
        checkRankPorts("kv-replay", source.get().replayEndpoint(), dpSize);
      }
    }
    String stream = fields.get("response-stream");
    Optional<ResponseStreamKind> responseStream = Optional.empty();
    if (stream != null) {
      try {
        responseStream = Optional.of(Parsers.named(ResponseStreamKind.class).apply(stream));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "response-stream '" + stream + "' is not " + Parsers.oneOf(ResponseStreamKind.class));
      }
    }
    return new WorkerSpec(
        id, host, port, path, blocks, source, dpSize, codec, instance, responseStream);
  }

  /** Keys a plain engine's HTTP server takes. */
  private static final Set<String> HTTP_KEYS =
      Set.of("id", "url", "engine", "kv-blocks", "dp-size", "kv-events", "kv-replay");

  /** A {@code url=} worker: a plain engine's HTTP server, its KV events in vLLM's format. */
  private static WorkerSpec parseHttp(String id, Map<String, String> fields) {
    for (String key : fields.keySet()) {
      if (!HTTP_KEYS.contains(key)) {
        throw new IllegalArgumentException(
            key
                + "= is for Dynamo workers: a url= worker (a plain engine's HTTP server) takes"
                + " id, url, engine, kv-blocks, dp-size, kv-events and kv-replay");
      }
    }
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException("id is required");
    }
    String raw = fields.get("url");
    URI url;
    try {
      url = new URI(raw);
    } catch (java.net.URISyntaxException e) {
      throw new IllegalArgumentException("url '" + raw + "' is not a URL");
    }
    if (!("http".equals(url.getScheme()) || "https".equals(url.getScheme()))
        || url.getHost() == null
        || url.getPort() < 1) {
      throw new IllegalArgumentException(
          "url '"
              + raw
              + "' is not http://HOST:PORT[/PATH] or https://HOST:PORT[/PATH] (the engine's"
              + " HTTP server)");
    }
    if (url.getQuery() != null || url.getFragment() != null) {
      throw new IllegalArgumentException("url '" + raw + "' must not have a query or fragment");
    }
    WorkerSpec dynamoShaped =
        parse(
            "id="
                + id
                + ",address="
                + url.getHost()
                + ":"
                + url.getPort()
                + fields.entrySet().stream()
                    .filter(e -> !Set.of("id", "url", "engine").contains(e.getKey()))
                    .map(e -> "," + e.getKey() + "=" + e.getValue())
                    .reduce("", String::concat));
    String path = url.getPath() == null ? "" : url.getPath();
    return new WorkerSpec(
        id,
        url.getHost(),
        url.getPort(),
        path,
        dynamoShaped.kvBlocks(),
        dynamoShaped.kvEvents(),
        dynamoShaped.dpSize(),
        RequestPlaneCodec.JSON,
        null,
        Optional.empty(),
        url,
        PlainEngine.of(fields.getOrDefault("engine", PlainEngine.VLLM.configName())));
  }

  /** The last rank's port, base + dp-size - 1, must still be a port. */
  private static void checkRankPorts(String key, String endpoint, int dpSize) {
    int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
    if (port + dpSize - 1 > 65535) {
      throw new IllegalArgumentException(
          key + " port " + port + " + dp-size " + dpSize + " - 1 is above 65535");
    }
  }

  /** A {@code tcp://HOST:PORT} endpoint, as ZeroMQ connects to it. */
  private static String zmqEndpoint(String key, String value) {
    String prefix = "tcp://";
    int colon = value.lastIndexOf(':');
    if (!value.startsWith(prefix) || colon <= prefix.length()) {
      throw new IllegalArgumentException(key + " '" + value + "' is not tcp://HOST:PORT");
    }
    try {
      Parsers.intInRange(value.substring(colon + 1), 1, 65535);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(key + " '" + value + "' has no valid port");
    }
    return value;
  }
}
