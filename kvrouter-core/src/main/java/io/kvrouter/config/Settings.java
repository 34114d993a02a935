package io.kvrouter.config;

import java.time.Duration;
import java.util.List;

/**
 * Every setting of the router, in the order {@code --help} and {@code config/router.yaml} show
 * them. Names and variables follow {@code python -m dynamo.frontend} where Dynamo has the setting.
 */
public final class Settings {
  private Settings() {}

  public static final Setting<String> HTTP_HOST =
      new Setting<>(
          "http-host",
          "DYN_HTTP_HOST",
          "HOST",
          "Address the OpenAI HTTP server listens on.",
          "0.0.0.0",
          "a host name or IP address",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> HTTP_PORT =
      new Setting<>(
          "http-port",
          "DYN_HTTP_PORT",
          "PORT",
          "Port of the OpenAI HTTP server.",
          "8000",
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<Integer> HTTP_BODY_LIMIT_MB =
      new Setting<>(
          "http-body-limit-mb",
          "DYN_HTTP_BODY_LIMIT_MB",
          "MB",
          "Largest request body accepted, in MiB; larger bodies get 413.",
          "45",
          "an integer from 1 to 1024",
          false,
          Parsers.ints(1, 1024));

  public static final Setting<Duration> HTTP_GRACEFUL_SHUTDOWN_TIMEOUT =
      new Setting<>(
          "http-graceful-shutdown-timeout-secs",
          "DYN_HTTP_GRACEFUL_SHUTDOWN_TIMEOUT_SECS",
          "SECONDS",
          "On shutdown, /live answers 503 and requests in flight get up to this long to finish.",
          "5",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Duration> HTTP_IDLE_TIMEOUT =
      new Setting<>(
          "http-idle-timeout-secs",
          null,
          "SECONDS",
          "A kept-alive client connection with no request in flight is closed when the first byte"
              + " of its next request has not come within this long.",
          "60",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Duration> HTTP_HEADER_TIMEOUT =
      new Setting<>(
          "http-header-timeout-secs",
          null,
          "SECONDS",
          "A request head (request line and headers) must arrive within this long, counted from"
              + " the connection's opening for its first request and from its first byte for"
              + " later ones; a late one gets 408 and the connection is closed (a connection that"
              + " sent nothing is closed without an answer).",
          "10",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Duration> HTTP_BODY_TIMEOUT =
      new Setting<>(
          "http-body-timeout-secs",
          null,
          "SECONDS",
          "A request body must arrive in full within this long after its head; a late one gets 408"
              + " and the connection is closed.",
          "30",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<java.nio.file.Path> TLS_CERT_PATH =
      new Setting<>(
          "tls-cert-path",
          "DYN_TLS_CERT_PATH",
          "PEM",
          "The HTTP server's certificate (its chain may follow it), with --tls-key-path: the"
              + " server then speaks HTTPS only, HTTP/2 and HTTP/1.1 by ALPN, and a plain HTTP"
              + " request gets its connection closed. Both files are read again once a change has"
              + " held for a 2 s look, so a renewed certificate needs no restart.",
          null,
          "a readable file",
          false,
          Parsers::path);

  public static final Setting<java.nio.file.Path> TLS_KEY_PATH =
      new Setting<>(
          "tls-key-path",
          "DYN_TLS_KEY_PATH",
          "PEM",
          "The private key of --tls-cert-path (PKCS#8, PKCS#1 for RSA or SEC 1 for EC),"
              + " unencrypted.",
          null,
          "a readable file",
          false,
          Parsers::path);

  public static final Setting<Integer> HTTP_MAX_CONNECTIONS =
      new Setting<>(
          "http-max-connections",
          null,
          "N",
          "Most client connections served at once. Past it, a few more are accepted for GET"
              + " /health, /live and /metrics only (load balancer probes; anything else on them gets"
              + " 503), and further ones are closed at once. Keep it well below the open-file limit"
              + " (ulimit -n), which worker connections share.",
          "10000",
          "an integer from 1 to 1000000",
          false,
          Parsers.ints(1, 1_000_000));

  public static final Setting<RouterMode> ROUTER_MODE =
      new Setting<>(
          "router-mode",
          "DYN_ROUTER_MODE",
          "MODE",
          "How a worker is picked for each request (router.jar simulate --policy compares the"
              + " same policies). "
              + RouterMode.describeAll()
              + ".",
          "round-robin",
          Parsers.oneOf(RouterMode.class),
          false,
          Parsers.named(RouterMode.class));

  public static final Setting<KvCost> ROUTER_KV_COST =
      new Setting<>(
          "router-kv-cost",
          null,
          "COST",
          "kv and approx modes: the cost the router minimises (router.jar simulate takes it"
              + " too). dynamo is Dynamo's (prefill blocks weighted by --kv-overlap-score-weight,"
              + " plus active blocks); predicted-ttft predicts each worker's time to first token"
              + " from the prompt tokens queued there and the request's uncached ones, plus the"
              + " delay its recomputation imposes on later requests (ahead of dynamo on the"
              + " Mooncake trace: docs/benchmarks.md); it does not use --kv-overlap-score-weight.",
          "dynamo",
          Parsers.oneOf(KvCost.class),
          false,
          Parsers.named(KvCost.class));

  public static final Setting<Double> KV_OVERLAP_SCORE_WEIGHT =
      new Setting<>(
              "kv-overlap-score-weight",
              "DYN_KV_OVERLAP_SCORE_WEIGHT",
              "WEIGHT",
              "kv mode: weight of the prompt tokens a worker must compute (not cached there) against"
                  + " its active KV blocks; higher favours cache reuse, 0 balances load only.",
              "1.0",
              "a number from 0 to 1000",
              false,
              Parsers.doubles(0, 1000))
          .withAliases("router-kv-overlap-score-weight");

  public static final Setting<Boolean> KV_EVENTS =
      new Setting<>(
              "kv-events",
              "DYN_KV_EVENTS",
              null,
              "kv mode: follow the workers' KV cache events (each --worker needs kv-events=...)."
                  + " With --no-kv-events the router learns what workers cache from its own"
                  + " decisions instead (approximate mode).",
              "true",
              "true or false",
              false,
              Parsers::bool)
          .withAliases("router-kv-events");

  public static final Setting<EventPlaneKind> EVENT_PLANE =
      new Setting<>(
          "event-plane",
          "DYN_EVENT_PLANE",
          "PLANE",
          "kv mode: where KV events come from. zmq: each --worker's publisher (kv-events=):"
              + " vLLM's, with kv-replay=, or Dynamo's ZMQ event plane with events-format=dynamo."
              + " nats: Dynamo's NATS event plane, in --nats-event-format. kafka: Dynamo's msgpack"
              + " events on Kafka (--kafka-bootstrap-servers), one topic per endpoint,"
              + " PREFIX.NS.COMPONENT.ENDPOINT.kv-events and ….kv-metrics. Dynamo's events are"
              + " recovered by asking the worker over the request plane after a gap or restart,"
              + " and worker ids must be the workers' Dynamo ids; their load reports (kv_metrics,"
              + " or kv-metrics=) feed the busy thresholds.",
          "zmq",
          Parsers.oneOf(EventPlaneKind.class),
          false,
          Parsers.named(EventPlaneKind.class));

  public static final Setting<String> NATS_SERVER =
      new Setting<>(
          "nats-server",
          "NATS_SERVER",
          "URL",
          "NATS server of --event-plane nats and --request-plane nats.",
          "nats://localhost:4222",
          "a NATS URL such as nats://HOST:4222",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS =
      new Setting<>(
          "kafka-bootstrap-servers",
          "KAFKA_BOOTSTRAP_SERVERS",
          "HOST:PORT[,HOST:PORT]",
          "Kafka brokers of --event-plane kafka, to start from.",
          "localhost:9092",
          "HOST:PORT pairs separated by commas",
          false,
          Parsers::hostPorts);

  public static final Setting<String> KAFKA_TOPIC_PREFIX =
      new Setting<>(
          "kafka-topic-prefix",
          null,
          "PREFIX",
          "--event-plane kafka: the first part of the topics, PREFIX.NS.COMPONENT.ENDPOINT.kv-events"
              + " (KV events) and ….kv-metrics (load reports).",
          "kvrouter",
          "letters, digits, '.', '_' and '-'",
          false,
          Parsers::topicPrefix);

  public static final Setting<java.nio.file.Path> KAFKA_CLIENT_CONFIG =
      new Setting<>(
          "kafka-client-config",
          null,
          "FILE",
          "--event-plane kafka: a Java properties file of Kafka client settings given to every"
              + " producer and consumer, as Kafka's own tools take it (--command-config): TLS"
              + " (security.protocol=SSL, ssl.truststore.location, ssl.keystore.location, …) and"
              + " SASL (security.protocol=SASL_SSL, sasl.mechanism, sasl.jaas.config). Off when"
              + " not set.",
          null,
          "a readable file",
          false,
          Parsers::path);

  public static final Setting<String> NAMESPACE =
      new Setting<>(
          "namespace",
          "DYN_NAMESPACE",
          "NS",
          "Dynamo namespace of the workers' NATS subjects (events and requests). With"
              + " --discovery-backend etcd or kubernetes, given or set, it is also the one"
              + " namespace whose model cards are served; unset, every namespace's are.",
          "dynamo",
          "one NATS subject token (no '.', '*', '>' or spaces)",
          false,
          Parsers::subjectToken);

  public static final Setting<String> COMPONENT =
      new Setting<>(
          "component",
          "DYN_COMPONENT",
          "NAME",
          "Dynamo component of the workers' NATS subjects (events and requests).",
          "backend",
          "one NATS subject token (no '.', '*', '>' or spaces)",
          false,
          Parsers::subjectToken);

  public static final Setting<String> ENDPOINT =
      new Setting<>(
          "endpoint",
          null,
          "NAME",
          "Dynamo endpoint of the workers' NATS event subjects with --nats-event-format envelope"
              + " (Dynamo v1.5 scopes events per endpoint: namespace.NS.component.NAME.endpoint."
              + "ENDPOINT.kv-events).",
          "generate",
          "one NATS subject token (no '.', '*', '>' or spaces)",
          false,
          Parsers::subjectToken);

  public static final Setting<NatsEventFormat> NATS_EVENT_FORMAT =
      new Setting<>(
          "nats-event-format",
          null,
          "FORMAT",
          "--event-plane nats: envelope (Dynamo v1.5 and later: msgpack EventEnvelopes with"
              + " RouterEvent batches on namespace.NS.component.NAME.endpoint.ENDPOINT.kv-events,"
              + " load on ….kv_metrics) or json (Dynamo v1.4 and earlier: RouterEvent JSON on"
              + " namespace.NS.component.NAME.kv_events, load on namespace.NS.kv_metrics, JetStream"
              + " with --durable-kv-events).",
          "envelope",
          Parsers.oneOf(NatsEventFormat.class),
          false,
          Parsers.named(NatsEventFormat.class));

  public static final Setting<Boolean> DURABLE_KV_EVENTS =
      new Setting<>(
              "durable-kv-events",
              "DYN_DURABLE_KV_EVENTS",
              null,
              "Deprecated (Dynamo v1.4 and earlier): with --nats-event-format json, follow the"
                  + " events' JetStream stream with a durable consumer (--durable-consumer), so"
                  + " events published while the router is away are delivered when it is back."
                  + " Dynamo v1.5 workers no longer publish to JetStream, so with the envelope"
                  + " format it is an error; there the router recovers from each worker's local"
                  + " indexer.",
              "false",
              "true or false",
              false,
              Parsers::bool)
          .withAliases("router-durable-kv-events");

  public static final Setting<String> DURABLE_CONSUMER =
      new Setting<>(
          "durable-consumer",
          "DYN_DURABLE_CONSUMER",
          "NAME",
          "Name of this router's JetStream consumer with --durable-kv-events; a restarted router"
              + " with the same name resumes where it stopped. One name per router replica.",
          "kvrouter",
          "one NATS subject token (no '.', '*', '>' or spaces)",
          false,
          Parsers::subjectToken);

  public static final Setting<Boolean> ROUTER_REPLICA_SYNC =
      new Setting<>(
          "router-replica-sync",
          "DYN_ROUTER_REPLICA_SYNC",
          null,
          "kv and approx modes, for several routers in front of the same workers: share each"
              + " router's requests in flight with the others, as Dynamo's routers do, so every"
              + " router weighs the load the whole fleet put on each worker. Travels on NATS"
              + " (NATS_SERVER, whatever --event-plane) as Dynamo's ActiveSequenceEvents on"
              + " namespace.NS.component.NAME.endpoint.ENDPOINT.active_sequences_events. Best"
              + " effort: a booking whose end was lost is dropped when 10 to 11 minutes old.",
          "false",
          "true or false",
          false,
          Parsers::bool);

  public static final Setting<List<String>> ALLOWED_ORIGINS =
      new Setting<>(
          "allowed-origins",
          null,
          "ORIGIN",
          "Repeatable (or comma-separated): a browser origin (scheme://host[:port], as vLLM's"
              + " --allowed-origins) whose pages may call the OpenAI routes (/v1/...) cross-origin,"
              + " or '*' for any. Off by default: no CORS headers are sent and a preflight gets no"
              + " permissive answer. Credentials (cookies) are never allowed; keys travel in"
              + " 'Authorization: Bearer'. /metrics, /router/... and the probes never answer"
              + " cross-origin.",
          null,
          "'*' alone, or origins such as http://localhost:5173",
          true,
          CorsOrigins::parseList);

  public static final Setting<String> API_KEY =
      new Setting<>(
              "api-key",
              null,
              "KEY",
              "Repeatable: a key that opens the OpenAI routes (/v1/...), sent by clients as"
                  + " 'Authorization: Bearer KEY' (the OpenAI clients' api_key). With any key given"
                  + " (here or in --api-keys-file), a request to those routes without a valid one gets"
                  + " 401; /health and /live stay open. Keys are compared in constant time and never"
                  + " logged; a command line is visible to other users of the machine, so prefer"
                  + " --api-keys-file or the config file.",
              null,
              "16 to 512 printable ASCII characters without spaces",
              true,
              Parsers::apiKey)
          .asSecret();

  public static final Setting<java.nio.file.Path> API_KEYS_FILE =
      new Setting<>(
          "api-keys-file",
          null,
          "FILE",
          "A file of keys that open the OpenAI routes, one per line as '[NAME] KEY' ('#'"
              + " comments); a key's NAME (else key-<digest>) labels its metrics. Read again once a"
              + " change has held for a 2 s look (write it by renaming a new file over it); a"
              + " changed file that does not parse is logged and the keys before stay; a deleted"
              + " file takes its keys with it.",
          null,
          "a readable file",
          false,
          Parsers::path);

  public static final Setting<String> ADMIN_API_KEY =
      new Setting<>(
              "admin-api-key",
              null,
              "KEY",
              "The key that opens /metrics and /router/... (as 'Authorization: Bearer KEY'); without"
                  + " it they are open to anyone who reaches the port. Must differ from every client"
                  + " key.",
              null,
              "16 to 512 printable ASCII characters without spaces",
              false,
              Parsers::apiKey)
          .asSecret();

  public static final Setting<Long> RATE_LIMIT_REQUESTS_PER_MINUTE =
      new Setting<>(
          "rate-limit-requests-per-minute",
          null,
          "N",
          "Generation requests (/v1/chat/completions, /v1/completions) each API key may start per"
              + " minute, as a token bucket that refills evenly over the minute (bursts of up to N);"
              + " a keys file line's rpm=N overrides it for its key. Without API keys the limit is"
              + " shared by all requests together. Past it: 429 with Retry-After and an OpenAI"
              + " rate_limit_exceeded error. Per router process. 0: no limit.",
          "0",
          "an integer from 0 (no limit) to " + RateLimits.MAX,
          false,
          Parsers.longs(0, RateLimits.MAX));

  public static final Setting<Long> RATE_LIMIT_TOKENS_PER_MINUTE =
      new Setting<>(
          "rate-limit-tokens-per-minute",
          null,
          "N",
          "Prompt and completion tokens each API key may use per minute (token bucket, bursts of up"
              + " to N). A request books its prompt plus max_tokens (without max_tokens, what the"
              + " context leaves, at most N) once tokenized, before it is routed; its end gives back"
              + " what it did not use. A request whose prompt plus max_tokens is over N can never"
              + " pass and gets 400. A keys file line's tpm=N overrides it; without API keys it is"
              + " shared by all requests. Per router process. 0: no limit.",
          "0",
          "an integer from 0 (no limit) to " + RateLimits.MAX,
          false,
          Parsers.longs(0, RateLimits.MAX));

  public static final Setting<Long> MAX_CONCURRENT_REQUESTS_PER_KEY =
      new Setting<>(
          "max-concurrent-requests-per-key",
          null,
          "N",
          "Generation requests each API key may have in flight at once; one more gets 429. A keys"
              + " file line's concurrency=N overrides it; without API keys it is shared by all"
              + " requests. Per router process. 0: no limit.",
          "0",
          "an integer from 0 (no limit) to " + RateLimits.MAX,
          false,
          Parsers.longs(0, RateLimits.MAX));

  public static final Setting<Boolean> CACHE_SALT_PER_KEY =
      new Setting<>(
          "cache-salt-per-key",
          null,
          null,
          "Make every API key its own tenant of the KV cache: each request's cache namespace is"
              + " its key's name, combined with any salt the client sends (x-tenant-id,"
              + " nvext.cache_salt or cache_salt), so requests of different keys never share"
              + " cached prefixes, in the router's index or in the engine, whatever salts their"
              + " clients pick. Needs --api-key or --api-keys-file.",
          "false",
          "true or false",
          false,
          Parsers::bool);

  public static final Setting<Boolean> ROUTER_INDEX_SNAPSHOTS =
      new Setting<>(
          "router-index-snapshots",
          null,
          null,
          "kv mode with KV events on the nats or kafka plane, for a fleet of routers: keep a"
              + " snapshot of the KV index (with each worker's last event id and, on Kafka, the"
              + " partitions' offsets) where the plane is: NATS JetStream's object store (NATS"
              + " started with JetStream) or the compacted Kafka topic PREFIX.index-snapshots."
              + " One router of the fleet writes it (a lock decides which); a router that starts"
              + " loads it, then asks each worker only for the events after it, instead of for"
              + " its whole state.",
          "false",
          "true or false",
          false,
          Parsers::bool);

  public static final Setting<Integer> ROUTER_SNAPSHOT_THRESHOLD =
      new Setting<>(
          "router-snapshot-threshold",
          "DYN_ROUTER_SNAPSHOT_THRESHOLD",
          "EVENTS",
          "With --router-index-snapshots: the router holding the lock writes a new snapshot once"
              + " its index has taken this many KV events since the last one (a worker's event"
              + " stores or removes one or more blocks; an answer to a tree dump is one event a"
              + " block). Ignored without snapshots.",
          "1000000",
          "an integer from 1 to 1073741824",
          false,
          Parsers.ints(1, 1 << 30));

  public static final Setting<Boolean> ROUTER_RESET_STATES =
      new Setting<>(
          "router-reset-states",
          "DYN_ROUTER_RESET_STATES",
          null,
          "With --router-index-snapshots: delete the fleet's snapshot at start and start from"
              + " the workers' own state (a fresh deployment, or a snapshot that cannot be"
              + " trusted).",
          "false",
          "true or false",
          false,
          Parsers::bool);

  public static final Setting<Integer> KV_EVENTS_MAX_MESSAGE_BYTES =
      new Setting<>(
          "kv-events-max-message-bytes",
          null,
          "BYTES",
          "kv mode: largest KV event message taken from a worker (a ZMQ frame, live or replayed, or"
              + " a NATS payload). ZeroMQ drops the connection of a publisher that sends a larger"
              + " frame before reading it (the router connects again and recovers what was lost);"
              + " a larger NATS payload is dropped. Each is counted and logged. vLLM's batches are"
              + " a few MiB at most.",
          String.valueOf(EventPlaneConfig.DEFAULT_MAX_MESSAGE_BYTES),
          "an integer from 1024 to 1073741824",
          false,
          Parsers.ints(1024, 1 << 30));

  public static final Setting<Double> ROUTER_TEMPERATURE =
      new Setting<>(
          "router-temperature",
          "DYN_ROUTER_TEMPERATURE",
          "T",
          "kv mode: 0 always picks the cheapest worker; above 0 a worker is drawn by softmax over"
              + " the costs, so ties and near-ties spread.",
          "0.0",
          "a number from 0 to 100",
          false,
          Parsers.doubles(0, 100));

  public static final Setting<Double> ACTIVE_DECODE_BLOCKS_THRESHOLD =
      new Setting<>(
          "active-decode-blocks-threshold",
          "DYN_ACTIVE_DECODE_BLOCKS_THRESHOLD",
          "FRACTION",
          "kv mode: a worker whose active KV blocks exceed this fraction of its KV blocks"
              + " (kv-blocks of --worker, --mock-num-gpu-blocks) is busy and gets no new request;"
              + " off when not set.",
          null,
          "a number from 0 to 1",
          false,
          Parsers.doubles(0, 1));

  public static final Setting<Long> ACTIVE_PREFILL_TOKENS_THRESHOLD =
      new Setting<>(
          "active-prefill-tokens-threshold",
          "DYN_ACTIVE_PREFILL_TOKENS_THRESHOLD",
          "TOKENS",
          "kv mode: a worker with more prompt tokens than this still to prefill is busy and gets"
              + " no new request; off when not set.",
          null,
          "an integer from 0 to 10000000000",
          false,
          Parsers.longs(0, 10_000_000_000L));

  public static final Setting<Integer> BUSY_STATUS_CODE =
      new Setting<>(
          "busy-status-code",
          null,
          "STATUS",
          "HTTP status answered when every worker is busy.",
          "503",
          "one of: 429, 503, 529",
          false,
          Parsers.intsOf(429, 503, 529));

  public static final Setting<Duration> ROUTER_TTL =
      new Setting<>(
              "router-ttl-secs",
              "DYN_ROUTER_TTL_SECS",
              "SECONDS",
              "kv mode without KV events: the router assumes a worker keeps the blocks of a prompt it"
                  + " was sent for this long after the last request that used them.",
              "120",
              "a number of seconds from 0.001 to 86400",
              false,
              Parsers::seconds)
          .withAliases("router-ttl");

  public static final Setting<Integer> ROUTER_MAX_TREE_SIZE =
      new Setting<>(
          "router-max-tree-size",
          "DYN_ROUTER_MAX_TREE_SIZE",
          "BLOCKS",
          "kv mode without KV events: when the blocks assumed cached, over all workers, exceed"
              + " this, the oldest are forgotten first.",
          "1048576",
          "an integer from 1 to 1073741824",
          false,
          Parsers.ints(1, 1 << 30));

  public static final Setting<Double> ROUTER_PRUNE_TARGET_RATIO =
      new Setting<>(
          "router-prune-target-ratio",
          "DYN_ROUTER_PRUNE_TARGET_RATIO",
          "RATIO",
          "kv mode without KV events: pruning forgets blocks until this fraction of"
              + " --router-max-tree-size is left.",
          "0.8",
          "a number above 0 and at most 1",
          false,
          Parsers.doubles(Double.MIN_VALUE, 1));

  public static final Setting<RequestPlaneKind> REQUEST_PLANE =
      new Setting<>(
          "request-plane",
          "DYN_REQUEST_PLANE",
          "PLANE",
          "Transport that carries requests to workers. tcp: Dynamo's TCP request plane (each"
              + " --worker's address=). nats: Dynamo's NATS request plane, requests on each"
              + " worker's subject NS_COMPONENT.ENDPOINT-INSTANCE (--nats-server, --namespace,"
              + " --component, the --worker's instance= and endpoint=). http: Dynamo's HTTP"
              + " request plane (Dynamo builds of December 2025 to May 2026; removed since), a POST"
              + " to the URL a discovered worker advertises, beside TCP for workers that advertise"
              + " a TCP address (--worker entries included). Responses come back over TCP to the"
              + " response-stream listener on all three.",
          "tcp",
          Parsers.oneOf(RequestPlaneKind.class),
          false,
          Parsers.named(RequestPlaneKind.class));

  public static final Setting<Duration> HTTP_RPC_REQUEST_TIMEOUT =
      new Setting<>(
          "http-rpc-request-timeout",
          "DYN_HTTP_REQUEST_TIMEOUT",
          "SECONDS",
          "--request-plane http: how long posting a request to a worker may take, from"
              + " connecting to its acknowledgement; a health probe's limit too.",
          "5",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Boolean> HTTP_RPC_PRIOR_KNOWLEDGE =
      new Setting<>(
          "http-rpc-prior-knowledge",
          "DYN_HTTP2_PRIOR_KNOWLEDGE",
          null,
          "--request-plane http: speak HTTP/2 to workers without negotiation (h2c with prior"
              + " knowledge), many requests on one connection; HTTP/1.1 on pooled keep-alive"
              + " connections otherwise, as Dynamo's frontend by default.",
          "false",
          "true or false (also 1/0, yes/no, on/off)",
          false,
          Parsers::bool);

  public static final Setting<WorkerSpec> WORKER =
      new Setting<>(
          "worker",
          null,
          "SPEC",
          "A worker serving Dynamo's TCP request plane, e.g. id=w1,address=127.0.0.1:9001;"
              + " the address may end in /PATH (default /generate); kv-blocks=N declares its KV"
              + " capacity (per data-parallel rank); dp-size=N its data-parallel ranks (kv mode"
              + " routes to a rank); kv-events=tcp://HOST:PORT is where it publishes vLLM KV"
              + " events and kv-replay=tcp://HOST:PORT its replay socket (rank r: port + r);"
              + " events-format=dynamo says kv-events= is Dynamo's ZMQ event plane instead (one"
              + " socket for every rank, recovery asked over the request plane; the id must then"
              + " be the worker's numeric Dynamo id), and kv-metrics=tcp://HOST:PORT where its"
              + " load reports are published. codec=msgpack says it takes Dynamo's msgpack payloads"
              + " (its DYN_REQUEST_PLANE_CODEC; default json, as Dynamo's frontend assumes for a"
              + " worker that advertises none). instance=HEX is its Dynamo instance id in hex, its"
              + " NATS request subject's last part, for --request-plane nats (address= may then be"
              + " left out, and endpoint=NAME names its endpoint, default generate). response-stream=call-home|mux says how it"
              + " streams responses back over TCP (default: --tcp-response-mux). A plain vllm"
              + " serve is url=http://HOST:PORT (or https://, see --http-worker-ca-cert-path)"
              + " instead of address= (token ids sent to its"
              + " /v1/completions, load read from its /metrics; kv-blocks, dp-size, kv-events and"
              + " kv-replay as above), an SGLang server the same with engine=sglang (token ids"
              + " to its /generate). Repeat for each worker.",
          null,
          WorkerSpec.EXPECTED,
          true,
          WorkerSpec::parse);

  public static final Setting<Integer> MOCK_WORKERS =
      new Setting<>(
          "mock-workers",
          null,
          "N",
          "Start N simulated workers inside this process, each serving the TCP request plane"
              + " on its own loopback port, with the engine the --mock-* options describe (the"
              + " options of router.jar worker, with mock- in front).",
          "0",
          "an integer from 0 to 64",
          false,
          Parsers.ints(0, 64));

  public static final Setting<String> MODEL_PATH =
      new Setting<>(
          "model-path",
          null,
          "DIR|ORG/NAME",
          "Hugging Face model folder, or the id of a model in the local Hugging Face cache"
              + " (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub; nothing is"
              + " downloaded): its tokenizer.json and the chat_template of tokenizer_config.json"
              + " are used. Without it the demo tokenizer (UTF-8 bytes as token ids) and a plain"
              + " ChatML template are used.",
          null,
          "a model folder or a Hugging Face model id",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> SERVED_MODEL_NAME =
      new Setting<>(
          "served-model-name",
          null,
          "NAME",
          "Model name clients use; defaults to the model folder's name, or mock-model.",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> REASONING_PARSER =
      new Setting<>(
          "reasoning-parser",
          null,
          "NAME",
          "Reads the model's reasoning out of chat answers into reasoning_content: basic,"
              + " deepseek_r1 or qwen3 for <think>...</think> blocks (one format under Dynamo's"
              + " and vLLM's names; whether an answer starts inside a block is read from the"
              + " prompt), gpt_oss for the harmony format's analysis channel.",
          null,
          "basic, deepseek_r1, qwen3 or gpt_oss",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> TOOL_CALL_PARSER =
      new Setting<>(
          "tool-call-parser",
          null,
          "NAME",
          "Reads the model's tool calls out of chat answers into tool_calls when a request has"
              + " tools and tool_choice \"auto\": hermes (Qwen 2.5, Qwen 3), llama3_json"
              + " (Llama 3.1, 3.2), mistral (Mistral Nemo), deepseek_v3, harmony (gpt-oss)."
              + " Without it such requests are refused.",
          null,
          "hermes, llama3_json, mistral, deepseek_v3 or harmony",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> KV_CACHE_BLOCK_SIZE =
      new Setting<>(
          "kv-cache-block-size",
          "DYN_KV_CACHE_BLOCK_SIZE",
          "TOKENS",
          "Tokens per KV cache block of the workers; kv mode hashes prompts in blocks of this"
              + " size, so it must match the workers' (the --mock-workers' is this). Exported as"
              + " dynamo_frontend_model_kv_cache_block_size.",
          "16",
          "an integer from 1 to 1024",
          false,
          Parsers.ints(1, 1024));

  public static final Setting<Integer> CONTEXT_LENGTH =
      new Setting<>(
          "context-length",
          null,
          "TOKENS",
          "Most tokens one request may hold, prompt and completion together: the served model's"
              + " context length (vLLM's --max-model-len). A request whose max_tokens, or prompt"
              + " plus max_tokens, is longer gets 400; one without max_tokens is cut at what is"
              + " left. Defaults to what the model folder says (config.json's"
              + " max_position_embeddings and similar keys, with rope scaling, capped by"
              + " tokenizer_config.json's model_max_length); the demo tokenizer has none, and"
              + " requests are then bounded by the largest worker's KV cache when it is known.",
          null,
          "an integer from 1 to 2147483647",
          false,
          Parsers.ints(1, Integer.MAX_VALUE));

  public static final Setting<Integer> TCP_MAX_MESSAGE_SIZE =
      new Setting<>(
          "tcp-max-message-size",
          "DYN_TCP_MAX_MESSAGE_SIZE",
          "BYTES",
          "Largest request-plane frame sent or accepted; a larger one closes the connection.",
          String.valueOf(TcpConfig.DEFAULT_MAX_MESSAGE_SIZE),
          "an integer from 1024 to 1073741824",
          false,
          Parsers.ints(1024, 1 << 30));

  public static final Setting<Duration> TCP_REQUEST_TIMEOUT =
      new Setting<>(
          "tcp-request-timeout",
          "DYN_TCP_REQUEST_TIMEOUT",
          "SECONDS",
          "How long to wait for a worker to acknowledge a request, or to answer a health probe"
              + " while it is out of rotation.",
          "5",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Integer> TCP_POOL_SIZE =
      new Setting<>(
          "tcp-pool-size",
          "DYN_TCP_POOL_SIZE",
          "N",
          "Most request-plane connections kept open to one Dynamo worker. A plain engine"
              + " (url= worker) holds one HTTP connection per streamed answer, so its pool admits"
              + " up to --http-max-connections instead.",
          "100",
          "an integer from 1 to 10000",
          false,
          Parsers.ints(1, 10_000));

  public static final Setting<Duration> TCP_CONNECT_TIMEOUT =
      new Setting<>(
          "tcp-connect-timeout",
          "DYN_TCP_CONNECT_TIMEOUT",
          "SECONDS",
          "How long to wait for a connection to a worker to open.",
          "5",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  public static final Setting<Duration> WORKER_STREAM_IDLE_TIMEOUT =
      new Setting<>(
          "worker-stream-idle-timeout-secs",
          null,
          "SECONDS",
          "A response stream that gets nothing from its worker for this long (while the client"
              + " reads) ends with an error, is cancelled at the worker, and the worker leaves"
              + " rotation until it answers a health probe.",
          "120",
          "a number of seconds from 0.001 to 86400",
          false,
          Parsers::seconds);

  /**
   * Dynamo's {@code --migration-limit} ({@code DYN_MIGRATION_LIMIT}, default 0 in
   * components/src/dynamo/frontend/frontend_args.py at c6b40e78 and 0243c51b).
   */
  public static final Setting<Integer> MIGRATION_LIMIT =
      new Setting<>(
          "migration-limit",
          "DYN_MIGRATION_LIMIT",
          "N",
          "How many times one request may move to another worker when its worker's stream breaks"
              + " off or stalls after output has begun: it continues there with the tokens"
              + " generated so far, unseen by the client. 0 turns it off; the stream then ends"
              + " with an error.",
          "0",
          "an integer from 0 to 2147483647",
          false,
          Parsers.ints(0, Integer.MAX_VALUE));

  public static final Setting<String> TCP_RESPONSE_STREAM_HOST =
      new Setting<>(
          "tcp-response-stream-host",
          "DYN_TCP_RESPONSE_STREAM_HOST",
          "HOST",
          "Address of the listener workers call back to stream responses; defaults to"
              + " --http-host.",
          null,
          "a host name or IP address",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> TCP_RESPONSE_STREAM_PORT =
      new Setting<>(
          "tcp-response-stream-port",
          "DYN_TCP_RESPONSE_STREAM_PORT",
          "PORT",
          "Port of the response-stream listener (0 picks a free port).",
          "0",
          "an integer from 0 to 65535",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<String> TCP_RESPONSE_STREAM_ADVERTISE_HOST =
      new Setting<>(
          "tcp-response-stream-advertise-host",
          "DYN_TCP_RESPONSE_STREAM_ADVERTISE_HOST",
          "HOST",
          "Host workers are told to call back; defaults to the response-stream host when that"
              + " is a specific address, else the local address of the connection the request"
              + " was sent on.",
          null,
          "a host name or IP address",
          false,
          Parsers::nonEmpty);

  public static final Setting<Boolean> TCP_RESPONSE_MUX =
      new Setting<>(
          "tcp-response-mux",
          "DYN_TCP_RESPONSE_MUX",
          null,
          "Ask workers to stream responses over their pooled multiplexed connections"
              + " (tcp_response_mux_v1, what Dynamo's latest workers require) instead of one"
              + " call-home connection per response (Dynamo v1.5). A worker's"
              + " response-stream=call-home|mux in --worker overrides it for that worker.",
          "false",
          "true or false (also 1, 0 or empty, as Dynamo reads DYN_TCP_RESPONSE_MUX)",
          false,
          raw -> raw.isBlank() ? Boolean.FALSE : Parsers.bool(raw));

  /** All settings, in help order. */
  public static final List<Setting<?>> ALL =
      concat(
          List.of(
              HTTP_HOST,
              HTTP_PORT,
              HTTP_BODY_LIMIT_MB,
              HTTP_GRACEFUL_SHUTDOWN_TIMEOUT,
              HTTP_IDLE_TIMEOUT,
              HTTP_HEADER_TIMEOUT,
              HTTP_BODY_TIMEOUT,
              HTTP_MAX_CONNECTIONS,
              TLS_CERT_PATH,
              TLS_KEY_PATH,
              ALLOWED_ORIGINS,
              API_KEY,
              API_KEYS_FILE,
              ADMIN_API_KEY,
              RATE_LIMIT_REQUESTS_PER_MINUTE,
              RATE_LIMIT_TOKENS_PER_MINUTE,
              MAX_CONCURRENT_REQUESTS_PER_KEY,
              CACHE_SALT_PER_KEY,
              ROUTER_MODE,
              KV_OVERLAP_SCORE_WEIGHT,
              KV_EVENTS,
              EVENT_PLANE,
              NATS_SERVER,
              KAFKA_BOOTSTRAP_SERVERS,
              KAFKA_TOPIC_PREFIX,
              KAFKA_CLIENT_CONFIG,
              NAMESPACE,
              COMPONENT,
              ENDPOINT,
              NATS_EVENT_FORMAT,
              DURABLE_KV_EVENTS,
              DURABLE_CONSUMER,
              KV_EVENTS_MAX_MESSAGE_BYTES,
              ROUTER_REPLICA_SYNC,
              ROUTER_INDEX_SNAPSHOTS,
              ROUTER_SNAPSHOT_THRESHOLD,
              ROUTER_RESET_STATES,
              ROUTER_KV_COST,
              ROUTER_TEMPERATURE,
              ACTIVE_DECODE_BLOCKS_THRESHOLD,
              ACTIVE_PREFILL_TOKENS_THRESHOLD,
              BUSY_STATUS_CODE,
              ROUTER_TTL,
              ROUTER_MAX_TREE_SIZE,
              ROUTER_PRUNE_TARGET_RATIO,
              REQUEST_PLANE,
              HTTP_RPC_REQUEST_TIMEOUT,
              HTTP_RPC_PRIOR_KNOWLEDGE),
          DiscoverySettings.ROUTER,
          List.of(
              WORKER,
              MOCK_WORKERS,
              EngineKnobs.MOCK.timingModel(),
              EngineKnobs.MOCK.ttftMs(),
              EngineKnobs.MOCK.itlMs(),
              EngineKnobs.MOCK.speedupRatio(),
              EngineKnobs.MOCK.maxNumSeqs(),
              EngineKnobs.MOCK.maxNumBatchedTokens(),
              EngineKnobs.MOCK.watermark(),
              EngineKnobs.MOCK.numGpuBlocks(),
              MODEL_PATH,
              SERVED_MODEL_NAME,
              REASONING_PARSER,
              TOOL_CALL_PARSER,
              KV_CACHE_BLOCK_SIZE,
              CONTEXT_LENGTH,
              TCP_MAX_MESSAGE_SIZE,
              TCP_REQUEST_TIMEOUT,
              TCP_POOL_SIZE,
              TCP_CONNECT_TIMEOUT,
              WORKER_STREAM_IDLE_TIMEOUT,
              MIGRATION_LIMIT,
              TCP_RESPONSE_STREAM_HOST,
              TCP_RESPONSE_STREAM_PORT,
              TCP_RESPONSE_STREAM_ADVERTISE_HOST,
              TCP_RESPONSE_MUX),
          TransportSecuritySettings.ALL,
          TransportSecuritySettings.HTTP_WORKERS);

  @SafeVarargs
  private static List<Setting<?>> concat(List<Setting<?>>... parts) {
    List<Setting<?>> all = new java.util.ArrayList<>();
    for (List<Setting<?>> part : parts) {
      all.addAll(part);
    }
    return List.copyOf(all);
  }
}
