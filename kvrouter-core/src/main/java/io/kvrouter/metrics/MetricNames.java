package io.kvrouter.metrics;

/**
 * Metric names, identical to Dynamo's so existing dashboards work. Counter names omit the {@code
 * _total} suffix that the Prometheus registry appends.
 */
public final class MetricNames {
  private MetricNames() {}

  public static final String FRONTEND_PREFIX = "dynamo_frontend_";

  public static final String REQUESTS = FRONTEND_PREFIX + "requests";
  public static final String INFLIGHT_REQUESTS = FRONTEND_PREFIX + "inflight_requests";
  public static final String DISCONNECTED_CLIENTS = FRONTEND_PREFIX + "disconnected_clients";
  public static final String TIME_TO_FIRST_TOKEN = FRONTEND_PREFIX + "time_to_first_token_seconds";
  public static final String INTER_TOKEN_LATENCY = FRONTEND_PREFIX + "inter_token_latency_seconds";
  public static final String INPUT_SEQUENCE_TOKENS = FRONTEND_PREFIX + "input_sequence_tokens";
  public static final String OUTPUT_SEQUENCE_TOKENS = FRONTEND_PREFIX + "output_sequence_tokens";
  public static final String REQUEST_DURATION = FRONTEND_PREFIX + "request_duration_seconds";
  public static final String OUTPUT_TOKENS = FRONTEND_PREFIX + "output_tokens";
  public static final String MODEL_KV_CACHE_BLOCK_SIZE =
      FRONTEND_PREFIX + "model_kv_cache_block_size";

  /**
   * Requests moved to another worker ({@code --migration-limit}), labelled {@code model} and {@code
   * migration_type}: Dynamo's counter (frontend_service::MODEL_MIGRATION_TOTAL in
   * lib/runtime/src/metrics/prometheus_names.rs at 04070c75). kvrouter counts only {@code
   * ongoing_request}, a stream that broke after output; a request no worker took at first moves on
   * without a migration (see {@code routing.FailoverStream}).
   */
  public static final String MODEL_MIGRATION = FRONTEND_PREFIX + "model_migration";

  public static final String TAG_MODEL = "model";
  public static final String TAG_MIGRATION_TYPE = "migration_type";
  public static final String MIGRATION_ONGOING_REQUEST = "ongoing_request";

  /**
   * KV cache events applied by the router's indexer, by {@code event_type} ({@code stored}, {@code
   * removed}, {@code cleared}) and {@code status} ({@code ok}, {@code parent_block_not_found},
   * {@code block_not_found}, {@code invalid_block}): Dynamo's counter and labels.
   */
  public static final String KV_CACHE_EVENTS_APPLIED = "dynamo_kvrouter_kv_cache_events_applied";

  public static final String TAG_EVENT_TYPE = "event_type";
  public static final String TAG_STATUS = "status";

  /**
   * Ours: KV cache events received from workers and dropped before the index, by {@code format}
   * ({@code vllm}, {@code dynamo}) and {@code reason}.
   */
  public static final String EVENTS_DROPPED = "kvrouter_kv_events_dropped";

  /**
   * Ours, per worker rank ({@code worker_id}, {@code dp_rank}) followed over ZMQ: batches applied,
   * sequence gaps seen, batches fetched by replay, resets (the rank's state was unknown or lost and
   * was rebuilt), replays that could not bring every missing batch, and messages dropped as
   * malformed (wrong frames or a payload that does not decode).
   */
  public static final String KV_EVENT_BATCHES = "kvrouter_kv_event_batches";

  public static final String KV_EVENT_GAPS = "kvrouter_kv_event_gaps";
  public static final String KV_EVENT_REPLAYED = "kvrouter_kv_event_replayed_batches";
  public static final String KV_EVENT_RESETS = "kvrouter_kv_event_resets";
  public static final String KV_EVENT_INCOMPLETE_REPLAYS = "kvrouter_kv_event_incomplete_replays";
  public static final String KV_EVENT_MALFORMED = "kvrouter_kv_event_malformed";

  /**
   * Ours, for workers followed by their Dynamo event ids: the questions asked of them, by {@code
   * kind}: {@code tree_dump} (the whole state) or {@code events} (those after a position).
   */
  public static final String KV_EVENT_RECOVERY_QUERIES = "kvrouter_kv_event_recovery_queries";

  public static final String TAG_KIND = "kind";

  /**
   * Ours, with API keys: requests let through, by the {@code key} name that opened them ({@code
   * admin} for the admin key), and requests refused with 401, by the {@code scope} of the route
   * ({@code client}: the OpenAI routes; {@code admin}: {@code /metrics}, {@code /router/...}).
   */
  public static final String API_KEY_REQUESTS = "kvrouter_api_key_requests";

  public static final String API_KEY_REJECTIONS = "kvrouter_api_key_rejections";
  public static final String TAG_KEY = "key";
  public static final String TAG_SCOPE = "scope";

  /**
   * Ours, with rate limits ({@code --rate-limit-*}, {@code --max-concurrent-requests-per-key}, a
   * keys file's {@code rpm= tpm= concurrency=}), by the {@code key} name ({@code anonymous} without
   * API keys): generation requests admitted past the request and concurrency limits, requests
   * refused by the {@code limit} they were over ({@code requests}, {@code tokens}, {@code
   * concurrency}; {@code tokens} also counts the 400 of a request too large for its key's tokens
   * per minute), tokens booked at admission and tokens used, prompt and completion, as settled when
   * the requests ended.
   */
  public static final String RATE_LIMIT_ADMITTED = "kvrouter_rate_limit_admitted_requests";

  public static final String RATE_LIMIT_REFUSED = "kvrouter_rate_limit_refused_requests";
  public static final String RATE_LIMIT_BOOKED_TOKENS = "kvrouter_rate_limit_booked_tokens";
  public static final String RATE_LIMIT_USED_TOKENS = "kvrouter_rate_limit_used_tokens";
  public static final String TAG_LIMIT = "limit";

  /**
   * Ours, with {@code --router-index-snapshots}: snapshots of the KV index by {@code outcome}:
   * {@code restored} at start, {@code written} by the router holding the lock, {@code failed} (a
   * load or write that did not succeed).
   */
  public static final String INDEX_SNAPSHOTS = "kvrouter_index_snapshots";

  /**
   * Ours, with {@code --router-replica-sync}: the fleet's booking changes, by {@code direction}:
   * {@code sent} (this router's, handed to NATS), {@code dropped} (this router's, lost because the
   * outbox was full or NATS was unreachable), {@code received} (other routers' applied).
   */
  public static final String REPLICA_SYNC_EVENTS = "kvrouter_replica_sync_events";

  public static final String TAG_DIRECTION = "direction";

  /**
   * Events delivered twice and dropped: by an at-least-once subscription (JetStream), or over ZMQ
   * the live copy of a batch a replay had already brought.
   */
  public static final String KV_EVENT_DUPLICATES = "kvrouter_kv_event_duplicates";

  /**
   * Ours, per worker rank followed over ZMQ: calls of the event listener (the translator and the
   * index behind it) that threw. The subscriber goes on with the next batch, but the rank's part of
   * the index may have lost that batch's events.
   */
  public static final String KV_EVENT_LISTENER_ERRORS = "kvrouter_kv_event_listener_errors";

  /**
   * Ours: KV event messages refused for being above {@code --kv-events-max-message-bytes}: over ZMQ
   * the connections ZeroMQ dropped for such a frame (per worker rank for vLLM's events, by {@code
   * format} for Dynamo's), over NATS the payloads dropped (by {@code format}).
   */
  public static final String KV_EVENT_OVERSIZED = "kvrouter_kv_event_oversized";

  /**
   * Ours, per worker rank: recoveries abandoned before their end, by {@code reason}: {@code
   * held_limit} (the batches or events held meanwhile reached their bound), {@code deadline} (a ZMQ
   * replay still going after its deadline).
   */
  public static final String KV_EVENT_ABANDONED_REPLAYS = "kvrouter_kv_event_abandoned_replays";

  public static final String REASON_HELD_LIMIT = "held_limit";
  public static final String REASON_DEADLINE = "deadline";

  /** {@link #EVENTS_DROPPED}'s reason for events of a worker that left the router. */
  public static final String REASON_DEPARTED_WORKER = "departed_worker";

  /**
   * {@link #EVENTS_DROPPED}'s reason for events of a worker of another model that publishes on the
   * same Dynamo endpoint (discovery).
   */
  public static final String REASON_OTHER_WORKER = "other_model_worker";

  public static final String TAG_FORMAT = "format";
  public static final String TAG_REASON = "reason";

  /** Ours: KV cache events accepted by the indexer and not yet applied. */
  public static final String INDEXER_PENDING_EVENTS = "kvrouter_indexer_pending_events";

  /**
   * The KV router's predicted active decode blocks per worker rank, labelled {@code worker_id},
   * {@code dp_rank}, {@code worker_type}: Dynamo's gauge.
   */
  public static final String WORKER_ACTIVE_DECODE_BLOCKS =
      FRONTEND_PREFIX + "worker_active_decode_blocks";

  /** The KV router's predicted prompt tokens still to prefill per worker rank: Dynamo's gauge. */
  public static final String WORKER_ACTIVE_PREFILL_TOKENS =
      FRONTEND_PREFIX + "worker_active_prefill_tokens";

  public static final String TAG_WORKER_ID = "worker_id";
  public static final String TAG_DP_RANK = "dp_rank";
  public static final String TAG_WORKER_TYPE = "worker_type";

  /**
   * Ours: routing decisions, by {@code router_mode} and {@code outcome} ({@code routed}: a worker
   * was chosen; {@code busy}: every healthy worker was over a busy threshold).
   */
  public static final String ROUTING_DECISIONS = "kvrouter_routing_decisions";

  public static final String TAG_ROUTER_MODE = "router_mode";
  public static final String TAG_OUTCOME = "outcome";

  /**
   * Ours: by {@code worker_id}, requests that met a fault at that worker (unreachable, no
   * acknowledgement within the request timeout, a response stream broken off or stalled) and failed
   * start-up probes; each takes the worker out of rotation unless it already is.
   */
  public static final String WORKER_FAULTS = "kvrouter_worker_faults";

  /**
   * Ours: health probes of unhealthy workers, by {@code worker_id} and {@code outcome} ({@code ok}:
   * the worker answered and is back in rotation; {@code failed}).
   */
  public static final String WORKER_HEALTH_PROBES = "kvrouter_worker_health_probes";

  /** Ours: per routed request, the prompt blocks the chosen worker already caches. */
  public static final String ROUTER_OVERLAP_BLOCKS = "kvrouter_router_overlap_blocks";

  /**
   * Ours: per routed request, the predicted KV hit rate: prompt tokens the chosen worker already
   * caches over the prompt's tokens (0 to 1).
   */
  public static final String ROUTER_KV_HIT_RATE = "kvrouter_router_kv_hit_rate";

  public static final String COMPONENT_PREFIX = "dynamo_component_";
  public static final String COMPONENT_REQUESTS = COMPONENT_PREFIX + "requests";
  public static final String COMPONENT_INFLIGHT_REQUESTS = COMPONENT_PREFIX + "inflight_requests";

  /** Ours: client connections of the OpenAI HTTP server open now. */
  public static final String HTTP_CONNECTIONS = "kvrouter_http_connections";

  /** Ours: client connections closed at once because every slot, reserve included, was taken. */
  public static final String HTTP_CONNECTIONS_REFUSED = "kvrouter_http_connections_refused";

  /**
   * Ours: requests the HTTP layer refused before an endpoint handled them, by {@code reason} (the
   * OpenAI error's code: {@code malformed_request}, {@code header_timeout}, {@code not_found},
   * ...).
   */
  public static final String HTTP_REJECTED_REQUESTS = "kvrouter_http_rejected_requests";

  /** Ours: requests a simulated worker stopped because the frontend cancelled them. */
  public static final String COMPONENT_CANCELLED_REQUESTS = "kvrouter_worker_cancelled_requests";
}
