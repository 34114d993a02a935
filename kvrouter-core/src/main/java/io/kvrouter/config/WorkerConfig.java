package io.kvrouter.config;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * The whole, validated configuration of a {@code router.jar worker} process.
 *
 * @param host the address its servers and publishers listen on
 * @param port the request-plane port, 0 for a free one
 * @param modelName the model it serves (labels its metrics)
 * @param modelPath the Hugging Face model folder output is drawn from, or {@code null} for the demo
 *     tokenizer's text
 * @param engine its simulated engine
 * @param events where its KV events go
 * @param systemPort the port of {@code /metrics}, {@code /health} and {@code /kv/state}; empty for
 *     none
 * @param tcp its request plane's settings
 * @param requestPlane where requests arrive besides TCP: with {@link RequestPlaneKind#NATS} also on
 *     the NATS subjects of {@code events}' namespace, component and worker id; with {@link
 *     RequestPlaneKind#HTTP} also on {@code httpRpc}'s HTTP server
 * @param httpRpc where it serves Dynamo's HTTP request plane with {@code --request-plane http}
 * @param acceptedResponseStreams the response transports it answers on ({@code
 *     --accept-response-stream})
 * @param etcdDiscovery where it registers itself with {@code --discovery-backend etcd}; empty
 *     otherwise
 * @param kubeDiscovery the pod it registers as with {@code --discovery-backend kubernetes}; empty
 *     otherwise
 * @param api what it serves requests on ({@code --api})
 */
public record WorkerConfig(
    String host,
    int port,
    String modelName,
    Path modelPath,
    SimulatedEngineConfig engine,
    WorkerEventsConfig events,
    OptionalInt systemPort,
    TcpConfig tcp,
    RequestPlaneKind requestPlane,
    HttpRpcServerConfig httpRpc,
    Set<ResponseStreamKind> acceptedResponseStreams,
    Optional<EtcdConfig> etcdDiscovery,
    Optional<KubeWorkerIdentity> kubeDiscovery,
    WorkerApi api,
    Optional<EngineServerTls> apiTls) {

  public WorkerConfig {
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(modelName, "modelName");
    Objects.requireNonNull(engine, "engine");
    Objects.requireNonNull(events, "events");
    Objects.requireNonNull(systemPort, "systemPort");
    Objects.requireNonNull(tcp, "tcp");
    Objects.requireNonNull(requestPlane, "requestPlane");
    Objects.requireNonNull(httpRpc, "httpRpc");
    Objects.requireNonNull(etcdDiscovery, "etcdDiscovery");
    Objects.requireNonNull(kubeDiscovery, "kubeDiscovery");
    Objects.requireNonNull(api, "api");
    if (etcdDiscovery.isPresent() && kubeDiscovery.isPresent()) {
      throw new IllegalArgumentException("a worker registers in one place");
    }
    acceptedResponseStreams = Set.copyOf(acceptedResponseStreams);
    if (acceptedResponseStreams.isEmpty()) {
      throw new IllegalArgumentException("a worker must accept a response transport");
    }
  }

  /**
   * This configuration with another Dynamo worker id: with etcd discovery the id is the lease id,
   * known only once the lease is granted; in Kubernetes, the pod name's hash.
   */
  public WorkerConfig withWorkerId(String workerId) {
    return new WorkerConfig(
        host,
        port,
        modelName,
        modelPath,
        engine,
        events.withWorkerId(workerId),
        systemPort,
        tcp,
        requestPlane,
        httpRpc,
        acceptedResponseStreams,
        etcdDiscovery,
        kubeDiscovery,
        api,
        apiTls);
  }
}
