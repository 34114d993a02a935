package io.kvrouter.config;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * The whole, validated configuration of a router process.
 *
 * @param apiKeys who may use the HTTP API ({@code --api-key}, {@code --api-keys-file}, {@code
 *     --admin-api-key})
 * @param workerStreamIdleTimeout how long a response stream may get nothing from its worker before
 *     it is given up ({@code --worker-stream-idle-timeout-secs})
 * @param migrationLimit how many times a request whose stream breaks after output may continue on
 *     another worker ({@code --migration-limit}); 0 for never
 * @param replicaSync {@code --router-replica-sync}: share the requests in flight with the other
 *     routers of the fleet over NATS
 * @param indexSnapshots {@code --router-index-snapshots}: share snapshots of the KV index with the
 *     fleet
 * @param discovery where workers and models are found; with a store, {@code workers} and {@code
 *     mockWorkers} are none and {@code model} holds only the settings every model shares (parsers,
 *     {@code --context-length})
 * @param engineTls how plain engines' HTTPS servers are checked ({@code --http-worker-*})
 * @param httpRpc how requests are posted to workers on Dynamo's HTTP request plane
 */
public record RouterConfig(
    HttpConfig http,
    ApiKeyConfig apiKeys,
    RouterMode routerMode,
    KvRouterConfig kv,
    EventPlaneConfig eventPlane,
    RequestPlaneKind requestPlane,
    TcpConfig tcp,
    Duration workerStreamIdleTimeout,
    int migrationLimit,
    boolean replicaSync,
    IndexSnapshotConfig indexSnapshots,
    List<WorkerSpec> workers,
    MockWorkerConfig mockWorkers,
    ModelConfig model,
    RouterDiscovery discovery,
    EngineTls engineTls,
    HttpRpcClientConfig httpRpc) {

  public RouterConfig {
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(apiKeys, "apiKeys");
    Objects.requireNonNull(routerMode, "routerMode");
    Objects.requireNonNull(kv, "kv");
    Objects.requireNonNull(eventPlane, "eventPlane");
    Objects.requireNonNull(requestPlane, "requestPlane");
    Objects.requireNonNull(httpRpc, "httpRpc");
    Objects.requireNonNull(tcp, "tcp");
    Objects.requireNonNull(workerStreamIdleTimeout, "workerStreamIdleTimeout");
    Objects.requireNonNull(indexSnapshots, "indexSnapshots");
    Objects.requireNonNull(mockWorkers, "mockWorkers");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(discovery, "discovery");
    Objects.requireNonNull(engineTls, "engineTls");
    workers = List.copyOf(workers);
  }
}
