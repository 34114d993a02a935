package io.kvrouter.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Every setting of {@code router.jar worker}, in the order its {@code --help} and {@code
 * config/worker.yaml} show them. Where the router has the same knob the row is the router's (same
 * name, variable and values), described from the worker's side; the engine's knobs are {@link
 * EngineKnobs#WORKER}, which the router offers with {@code mock-} in front.
 */
public final class WorkerSettings {
  private WorkerSettings() {}

  public static final Setting<String> HOST =
      new Setting<>(
          "host",
          "DYN_TCP_RPC_HOST",
          "HOST",
          "Address the request plane, the system port and the ZMQ event publishers listen on.",
          "0.0.0.0",
          "a host name or IP address",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> PORT =
      new Setting<>(
          "port",
          "DYN_TCP_RPC_PORT",
          "PORT",
          "Request-plane port; the router reaches the worker with --worker"
              + " id=ID,address=HOST:PORT. Required.",
          null,
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<String> MODEL_NAME =
      new Setting<>(
          "model-name",
          null,
          "NAME",
          "Name of the model this worker serves (labels its metrics). Required.",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> MODEL_PATH =
      Settings.MODEL_PATH.describedAs(
          "Hugging Face model folder, or the id of a model in the local Hugging Face cache"
              + " (HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub); output is drawn"
              + " from its tokenizer's vocabulary. Without it, output is demo-tokenizer text.");

  /** The router's block size, also under vLLM's and Dynamo mocker's name {@code --block-size}. */
  public static final Setting<Integer> KV_CACHE_BLOCK_SIZE =
      Settings.KV_CACHE_BLOCK_SIZE
          .withAliases("block-size")
          .describedAs(
              "Tokens per KV cache block (vLLM's --block-size); must match the router's"
                  + " --kv-cache-block-size.");

  public static final Setting<Integer> DATA_PARALLEL_SIZE =
      new Setting<>(
          "data-parallel-size",
          null,
          "N",
          "Data-parallel ranks, each with its own KV cache of --num-gpu-blocks, behind the one"
              + " request-plane port: a request goes to the rank the router names in"
              + " routing.dp_rank, else to the least busy. Rank r publishes its KV events on"
              + " --kv-events-port + r and --kv-replay-port + r (as vLLM), or, in Dynamo's format,"
              + " with dp_rank r.",
          "1",
          "an integer from 1 to 256",
          false,
          Parsers.ints(1, 256));

  public static final Setting<Integer> KV_EVENTS_PORT =
      new Setting<>(
          "kv-events-port",
          null,
          "PORT",
          "Publish the cache's KV events on ZMQ on this port: as vLLM does (PUB, topic \"\","
              + " frames topic | seq | msgpack batch), or with --kv-events-format dynamo as"
              + " Dynamo's ZMQ event plane (topic kv-events, enveloped msgpack RouterEvents of every"
              + " rank). The router follows them with --worker ...,kv-events=tcp://HOST:PORT. Off"
              + " when not set.",
          null,
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<Integer> KV_METRICS_PORT =
      new Setting<>(
          "kv-metrics-port",
          null,
          "PORT",
          "With --kv-events-format dynamo on zmq: publish the load reports (topic kv_metrics,"
              + " msgpack ActiveLoad) on this port; the router reads them with --worker"
              + " ...,kv-metrics=tcp://HOST:PORT. A free port, printed at start, when not set.",
          null,
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<Integer> KV_REPLAY_PORT =
      new Setting<>(
          "kv-replay-port",
          null,
          "PORT",
          "Answer replay requests (ZMQ ROUTER, as vLLM's replay_endpoint) from a buffer of the"
              + " last 10000 batches on this port; needs --kv-events-port. Off when not set.",
          null,
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<KvEventsEncoding> VLLM_ENCODING =
      new Setting<>(
          "vllm-encoding",
          null,
          "ENCODING",
          "msgpack layout of vLLM's events: map (vLLM since mid-2026) or array (earlier vLLM).",
          "map",
          Parsers.oneOf(KvEventsEncoding.class),
          false,
          Parsers.named(KvEventsEncoding.class));

  public static final Setting<Double> KV_EVENTS_DROP_RATE =
      new Setting<>(
          "kv-events-drop-rate",
          null,
          "FRACTION",
          "Lose this fraction of published batches (zmq) or events (nats) on purpose; they"
              + " stay replayable, or answerable by recovery query, to try a router against a"
              + " lossy network.",
          "0",
          "a number from 0 to 0.99",
          false,
          Parsers.doubles(0, 0.99));

  public static final Setting<EventPlaneKind> EVENT_PLANE =
      Settings.EVENT_PLANE.describedAs(
          "Where KV events go: zmq (PUB sockets on --kv-events-port, in --kv-events-format),"
              + " nats (Dynamo's NATS event plane, in --nats-event-format) or kafka (Dynamo's"
              + " msgpack events keyed by worker on PREFIX.NS.COMPONENT.ENDPOINT.kv-events, load on"
              + " ….kv-metrics, at --kafka-bootstrap-servers). In Dynamo's format"
              + " recovery queries are answered on the request plane, at"
              + " worker_kv_query_source_PUBLISHER (Dynamo v1.5, the publisher id in hex) and at"
              + " worker_kv_indexer_query_dpR (earlier releases).");

  public static final Setting<KvEventsFormat> KV_EVENTS_FORMAT =
      new Setting<>(
          "kv-events-format",
          null,
          "FORMAT",
          "vllm (msgpack batches; zmq only) or dynamo (RouterEvents: JSON on nats, enveloped"
              + " msgpack on zmq, recovery queries answered on the request plane). Default: vllm"
              + " on zmq, dynamo on nats.",
          null,
          Parsers.oneOf(KvEventsFormat.class),
          false,
          Parsers.named(KvEventsFormat.class));

  public static final Setting<String> NATS_SERVER = Settings.NATS_SERVER;

  public static final Setting<String> KAFKA_BOOTSTRAP_SERVERS = Settings.KAFKA_BOOTSTRAP_SERVERS;

  public static final Setting<String> KAFKA_TOPIC_PREFIX = Settings.KAFKA_TOPIC_PREFIX;

  public static final Setting<Path> KAFKA_CLIENT_CONFIG = Settings.KAFKA_CLIENT_CONFIG;

  public static final Setting<String> NAMESPACE =
      Settings.NAMESPACE.describedAs("Dynamo namespace of this worker's NATS subjects.");

  public static final Setting<String> COMPONENT =
      Settings.COMPONENT.describedAs("Dynamo component of this worker's NATS subjects.");

  public static final Setting<String> ENDPOINT =
      Settings.ENDPOINT.describedAs(
          "Dynamo endpoint of this worker's NATS event subjects with --nats-event-format"
              + " envelope.");

  public static final Setting<NatsEventFormat> NATS_EVENT_FORMAT =
      Settings.NATS_EVENT_FORMAT.describedAs(
          "--event-plane nats: envelope (as Dynamo v1.5 and later publish: msgpack"
              + " EventEnvelopes, one publisher id per data-parallel rank, on"
              + " namespace.NS.component.NAME.endpoint.ENDPOINT.kv-events, load on ….kv_metrics)"
              + " or json (as Dynamo v1.4 and earlier: RouterEvent JSON on"
              + " namespace.NS.component.NAME.kv_events, load on namespace.NS.kv_metrics).");

  public static final Setting<RequestPlaneKind> REQUEST_PLANE =
      Settings.REQUEST_PLANE.describedAs(
          "Where requests arrive. tcp: Dynamo's TCP request plane on --port. nats: also Dynamo's"
              + " NATS request plane, on the subject NS_COMPONENT.ENDPOINT-ID (--nats-server,"
              + " --namespace, --component; ID is --worker-id in hex, printed at start). http:"
              + " also Dynamo's HTTP request plane (Dynamo builds of December 2025 to May 2026), a"
              + " POST to http://HOST:PORT/ROOT/ENDPOINT (--http-rpc-host, --http-rpc-port,"
              + " --http-rpc-root-path), advertised so in discovery. Responses go back over TCP"
              + " to the frontend on all three. All take JSON and msgpack payloads.");

  public static final Setting<String> HTTP_RPC_HOST =
      new Setting<>(
          "http-rpc-host",
          "DYN_HTTP_RPC_HOST",
          "HOST",
          "--request-plane http: the address the HTTP request plane binds and advertises"
              + " (this machine's address when not set, as Dynamo resolves it).",
          null,
          "a host name or IP address",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> HTTP_RPC_PORT =
      new Setting<>(
          "http-rpc-port",
          "DYN_HTTP_RPC_PORT",
          "PORT",
          "--request-plane http: the HTTP request plane's port (0 picks a free one, advertised as"
              + " bound).",
          String.valueOf(HttpRpcServerConfig.DEFAULT_PORT),
          "an integer from 0 to 65535",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<String> HTTP_RPC_ROOT_PATH =
      new Setting<>(
          "http-rpc-root-path",
          "DYN_HTTP_RPC_ROOT_PATH",
          "PATH",
          "--request-plane http: the path the endpoints are served under: POST" + " ROOT/generate.",
          HttpRpcServerConfig.DEFAULT_ROOT_PATH,
          "a path starting with / and not ending with one",
          false,
          WorkerSettings::rootPath);

  public static final Setting<String> WORKER_ID =
      new Setting<>(
          "worker-id",
          null,
          "ID",
          "Dynamo worker id stamped on the events in Dynamo's format; the router names this"
              + " worker the same (--worker id=ID,...). A random one, printed at start, when not"
              + " set. With --discovery-backend etcd it is the etcd lease id, and not settable.",
          null,
          "a decimal integer from 0 to 18446744073709551615 without leading zeros",
          false,
          Parsers::dynamoWorkerId);

  public static final Setting<Boolean> DURABLE_KV_EVENTS =
      Settings.DURABLE_KV_EVENTS
          .withAliases()
          .describedAs(
              "Deprecated (Dynamo v1.4 and earlier): with --nats-event-format json, keep the"
                  + " events in the JetStream stream of the subject (created if missing), for"
                  + " routers that follow it with --durable-kv-events.");

  public static final Setting<Integer> SYSTEM_PORT =
      new Setting<>(
          "system-port",
          "DYN_SYSTEM_PORT",
          "PORT",
          "Serve /metrics (dynamo_component_*), /health and /kv/state (every cached KV block)"
              + " over HTTP on this port. Off when not set.",
          null,
          "an integer from 0 to 65535 (0 picks a free port)",
          false,
          Parsers.ints(0, 65535));

  public static final Setting<Integer> TCP_MAX_MESSAGE_SIZE = Settings.TCP_MAX_MESSAGE_SIZE;

  public static final Setting<Path> SSL_CERTFILE =
      new Setting<>(
          "ssl-certfile",
          null,
          "PEM",
          "With --api openai or sglang: serve HTTPS with this certificate (vLLM's flag), with"
              + " --ssl-keyfile.",
          null,
          "a readable PEM file",
          false,
          Parsers::path);

  public static final Setting<Path> SSL_KEYFILE =
      new Setting<>(
          "ssl-keyfile",
          null,
          "PEM",
          "The private key of --ssl-certfile, unencrypted.",
          null,
          "a readable PEM file",
          false,
          Parsers::path);

  public static final Setting<Path> SSL_CA_CERTS =
      new Setting<>(
          "ssl-ca-certs",
          null,
          "PEM",
          "The CA client certificates are checked against (vLLM's flag), with --ssl-cert-reqs.",
          null,
          "a readable PEM file",
          false,
          Parsers::path);

  public static final Setting<Integer> SSL_CERT_REQS =
      new Setting<>(
          "ssl-cert-reqs",
          null,
          "N",
          "Client certificates on the HTTPS API, as vLLM's flag: 0 none asked, 1 asked, 2"
              + " required.",
          "0",
          "0, 1 or 2",
          false,
          Parsers.intsOf(0, 1, 2));

  public static final Setting<WorkerApi> API =
      new Setting<>(
          "api",
          null,
          "API",
          "What the worker serves requests on: dynamo (Dynamo's request plane on --port, as a"
              + " Dynamo worker) or openai (the HTTP API of a vllm serve on --port: token-in"
              + " POST /v1/completions, streamed or not, GET /health and /v1/models; routers"
              + " reach it with --worker id=ID,url=http://HOST:PORT) or sglang (an SGLang"
              + " server's: POST /generate with input_ids, streamed cumulatively as SGLang does,"
              + " POST /abort_request, GET /health, /v1/models and SGLang's /metrics; routers"
              + " reach it with --worker id=ID,url=http://HOST:PORT,engine=sglang). With openai or"
              + " sglang the KV events are vLLM's format (which SGLang's publisher copies;"
              + " --kv-events-port) and the worker registers nowhere.",
          "dynamo",
          Parsers.oneOf(WorkerApi.class),
          false,
          Parsers.named(WorkerApi.class));

  public static final Setting<Set<ResponseStreamKind>> ACCEPT_RESPONSE_STREAM =
      new Setting<>(
          "accept-response-stream",
          null,
          "KIND",
          "Which response transports the worker answers on: any (both), call-home (as a Dynamo"
              + " v1.5 worker: one connection per response) or mux (as Dynamo's latest main:"
              + " pooled tcp_response_mux_v1 connections). A request asking for another is"
              + " refused in that release's words.",
          "any",
          "one of: any, call-home, mux",
          false,
          WorkerSettings::acceptedStreams);

  private static Set<ResponseStreamKind> acceptedStreams(String raw) {
    if (raw.equals("any")) {
      return Set.of(ResponseStreamKind.values());
    }
    return Set.of(Parsers.named(ResponseStreamKind.class).apply(raw));
  }

  private static String rootPath(String raw) {
    if (!raw.startsWith("/") || raw.endsWith("/") || raw.contains("?") || raw.contains("#")) {
      throw new IllegalArgumentException("not a path starting with / and not ending with one");
    }
    return raw;
  }

  /** All settings, in help order. */
  public static final List<Setting<?>> ALL = all();

  private static List<Setting<?>> all() {
    List<Setting<?>> all =
        new ArrayList<>(
            List.of(
                HOST,
                PORT,
                API,
                SSL_CERTFILE,
                SSL_KEYFILE,
                SSL_CA_CERTS,
                SSL_CERT_REQS,
                MODEL_NAME,
                MODEL_PATH));
    all.addAll(EngineKnobs.WORKER.all());
    all.addAll(
        List.of(
            KV_CACHE_BLOCK_SIZE,
            DATA_PARALLEL_SIZE,
            KV_EVENTS_PORT,
            KV_METRICS_PORT,
            KV_REPLAY_PORT,
            VLLM_ENCODING,
            KV_EVENTS_DROP_RATE,
            EVENT_PLANE,
            KV_EVENTS_FORMAT,
            NATS_SERVER,
            KAFKA_BOOTSTRAP_SERVERS,
            KAFKA_TOPIC_PREFIX,
            KAFKA_CLIENT_CONFIG,
            NAMESPACE,
            COMPONENT,
            ENDPOINT,
            NATS_EVENT_FORMAT,
            REQUEST_PLANE,
            HTTP_RPC_HOST,
            HTTP_RPC_PORT,
            HTTP_RPC_ROOT_PATH,
            WORKER_ID,
            DURABLE_KV_EVENTS,
            SYSTEM_PORT,
            TCP_MAX_MESSAGE_SIZE,
            ACCEPT_RESPONSE_STREAM));
    all.addAll(TransportSecuritySettings.ALL);
    all.addAll(DiscoverySettings.ALL);
    return List.copyOf(all);
  }
}
