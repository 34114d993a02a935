package io.kvrouter.config;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * The discovery settings, with Dynamo's names and variables (docs/notes/dynamo-discovery.md §4),
 * for the router ({@link #ROUTER}: where it finds workers and models) and for {@code router.jar
 * worker} ({@link WorkerSettings#ALL}: where it registers itself). The two share every row but the
 * backend's help.
 */
public final class DiscoverySettings {
  private DiscoverySettings() {}

  public static final Setting<DiscoveryBackend> ROUTER_DISCOVERY_BACKEND =
      new Setting<>(
          "discovery-backend",
          "DYN_DISCOVERY_BACKEND",
          "BACKEND",
          "Where the router finds its workers and models. static: the --worker list (or"
              + " --mock-workers) and the one model of --model-path. etcd: every model card in"
              + " etcd's v1/mdc/ becomes a served model, and the workers registered in"
              + " v1/instances/ on that card's endpoint serve it; they join and leave while the"
              + " router runs (a crashed worker's keys vanish when its lease expires, 10 s)."
              + " kubernetes: the same records, read from DynamoWorkerMetadata resources of pods"
              + " that are ready in an EndpointSlice labelled"
              + " nvidia.com/dynamo-discovery-backend=kubernetes and"
              + " nvidia.com/dynamo-discovery-enabled=true (--kube-namespace).",
          "static",
          Parsers.oneOf(DiscoveryBackend.class),
          false,
          Parsers.named(DiscoveryBackend.class));

  public static final Setting<DiscoveryBackend> DISCOVERY_BACKEND =
      new Setting<>(
          "discovery-backend",
          "DYN_DISCOVERY_BACKEND",
          "BACKEND",
          "static: register nowhere (routers list this worker with --worker). etcd: register this"
              + " worker as a Dynamo worker does, under one etcd lease (TTL 10 s, kept alive):"
              + " its endpoint in v1/instances/NS/COMPONENT/ENDPOINT/ID, its model card in"
              + " v1/mdc/..., and with --kv-events-format dynamo its KV event publishers in"
              + " v1/event_channels/...; ID is the lease id in hex, which is then also the worker"
              + " id. The keys vanish when the lease is revoked at shutdown or expires after a"
              + " crash. kubernetes: server-side-apply a DynamoWorkerMetadata named after the pod"
              + " (--pod-name, --pod-uid, --kube-namespace) and owned by it, holding the same"
              + " records; routers count it while the pod is ready in an EndpointSlice labelled"
              + " nvidia.com/dynamo-discovery-backend=kubernetes and"
              + " nvidia.com/dynamo-discovery-enabled=true.",
          "static",
          Parsers.oneOf(DiscoveryBackend.class),
          false,
          Parsers.named(DiscoveryBackend.class));

  public static final Setting<List<URI>> ETCD_ENDPOINTS =
      new Setting<>(
          "etcd-endpoints",
          "ETCD_ENDPOINTS",
          "URL[,URL]",
          "etcd's client URLs for --discovery-backend etcd, separated by commas.",
          EtcdConfig.DEFAULT_ENDPOINTS,
          "http://HOST:PORT or https://HOST:PORT, comma-separated",
          false,
          EtcdConfig::parseEndpoints);

  public static final Setting<String> ETCD_AUTH_USERNAME =
      new Setting<>(
          "etcd-auth-username",
          "ETCD_AUTH_USERNAME",
          "USER",
          "etcd user name (with --etcd-auth-password).",
          null,
          "a non-empty string",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_PASSWORD =
      new Setting<>(
              "etcd-auth-password",
              "ETCD_AUTH_PASSWORD",
              "PASSWORD",
              "etcd password (with --etcd-auth-username).",
              null,
              "a non-empty string",
              false,
              Parsers::nonEmpty)
          .asSecret();

  public static final Setting<String> ETCD_AUTH_CA =
      new Setting<>(
          "etcd-auth-ca",
          "ETCD_AUTH_CA",
          "PEM",
          "CA certificate etcd's server certificate is checked against (TLS): PEM text, or the"
              + " path of a PEM file.",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_CLIENT_CERT =
      new Setting<>(
          "etcd-auth-client-cert",
          "ETCD_AUTH_CLIENT_CERT",
          "PEM",
          "Client certificate for etcd (mutual TLS, with --etcd-auth-client-key and"
              + " --etcd-auth-ca): PEM text, or the path of a PEM file.",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> ETCD_AUTH_CLIENT_KEY =
      new Setting<>(
          "etcd-auth-client-key",
          "ETCD_AUTH_CLIENT_KEY",
          "PEM",
          "The client certificate's private key (PKCS#8 PEM text, or the path of a PEM file).",
          null,
          "PEM text or a file path",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> KUBE_NAMESPACE =
      new Setting<>(
          "kube-namespace",
          "POD_NAMESPACE",
          "NS",
          "The Kubernetes namespace --discovery-backend kubernetes works in (Dynamo watches and"
              + " registers in its own pod's namespace). Unset: the client configuration's"
              + " namespace (in a pod, its service account's), else default. The API server and"
              + " credentials come from the usual client configuration: in a pod its service"
              + " account, else KUBECONFIG or ~/.kube/config.",
          null,
          "a Kubernetes namespace name",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> POD_NAME =
      new Setting<>(
          "pod-name",
          "POD_NAME",
          "NAME",
          "With --discovery-backend kubernetes: the worker's pod (set it from the Downward API,"
              + " metadata.name). Its DynamoWorkerMetadata is named after it and its instance id"
              + " is the name's hash, as a Dynamo worker's.",
          null,
          "a pod name",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> POD_UID =
      new Setting<>(
          "pod-uid",
          "POD_UID",
          "UID",
          "With --discovery-backend kubernetes: the pod's uid (Downward API, metadata.uid), which"
              + " owns its DynamoWorkerMetadata so that the resource goes with the pod.",
          null,
          "a pod uid",
          false,
          Parsers::nonEmpty);

  public static final Setting<String> WORKER_SELECTOR =
      new Setting<>(
          "worker-selector",
          null,
          "SELECTOR",
          "With --discovery-backend kubernetes: find plain engines (vllm serve) as pods instead"
              + " of Dynamo workers. Every ready pod this label selector matches (e.g. app=vllm)"
              + " in --kube-namespace is a worker at http://POD_IP:--worker-port, joining and"
              + " leaving as pods turn ready and not; the model is the router's own"
              + " (--model-path).",
          null,
          "a Kubernetes label selector, e.g. app=vllm or app=vllm,tier in (gpu)",
          false,
          Parsers::nonEmpty);

  public static final Setting<Integer> WORKER_PORT =
      new Setting<>(
          "worker-port",
          null,
          "PORT",
          "With --worker-selector: the port of each pod's engine HTTP server.",
          "8000",
          "a port from 1 to 65535",
          false,
          raw -> Parsers.intInRange(raw, 1, 65535));

  public static final Setting<Integer> POD_KV_EVENTS_PORT =
      new Setting<>(
          "kv-events-port",
          null,
          "PORT",
          "With --worker-selector: the port each pod's engine publishes vLLM's KV events on"
              + " (its --kv-events-config endpoint); a rank r of a data-parallel engine uses"
              + " the port + r.",
          null,
          "a port from 1 to 65535",
          false,
          raw -> Parsers.intInRange(raw, 1, 65535));

  public static final Setting<Integer> POD_KV_REPLAY_PORT =
      new Setting<>(
          "kv-replay-port",
          null,
          "PORT",
          "With --worker-selector: the port of each pod's KV event replay socket (its"
              + " --kv-events-config replay_endpoint).",
          null,
          "a port from 1 to 65535",
          false,
          raw -> Parsers.intInRange(raw, 1, 65535));

  /** The etcd rows, shared by router and worker. */
  private static final List<Setting<?>> ETCD =
      List.of(
          ETCD_ENDPOINTS,
          ETCD_AUTH_USERNAME,
          ETCD_AUTH_PASSWORD,
          ETCD_AUTH_CA,
          ETCD_AUTH_CLIENT_CERT,
          ETCD_AUTH_CLIENT_KEY,
          KUBE_NAMESPACE);

  /** The router's discovery settings, in help order. */
  public static final List<Setting<?>> ROUTER = router();

  private static List<Setting<?>> router() {
    List<Setting<?>> all = new java.util.ArrayList<>(withBackend(ROUTER_DISCOVERY_BACKEND));
    all.addAll(List.of(WORKER_SELECTOR, WORKER_PORT, POD_KV_EVENTS_PORT, POD_KV_REPLAY_PORT));
    return List.copyOf(all);
  }

  /** The worker's discovery settings, in help order. */
  public static final List<Setting<?>> ALL = worker();

  private static List<Setting<?>> worker() {
    List<Setting<?>> all = new java.util.ArrayList<>(withBackend(DISCOVERY_BACKEND));
    all.add(POD_NAME);
    all.add(POD_UID);
    return List.copyOf(all);
  }

  private static List<Setting<?>> withBackend(Setting<DiscoveryBackend> backend) {
    List<Setting<?>> all = new java.util.ArrayList<>();
    all.add(backend);
    all.addAll(ETCD);
    return List.copyOf(all);
  }

  /**
   * The Kubernetes namespace the settings name ({@link KubeDiscoveryConfig}); a {@link
   * ConfigException} names a bad one.
   */
  static KubeDiscoveryConfig kube(SettingValues values) {
    try {
      return new KubeDiscoveryConfig(Optional.ofNullable(values.value(KUBE_NAMESPACE)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid value for " + KUBE_NAMESPACE.flag() + ": " + e.getMessage());
    }
  }

  /** The etcd connection the settings describe; a {@link ConfigException} names a bad pairing. */
  static EtcdConfig etcd(SettingValues values) {
    try {
      return new EtcdConfig(
          values.value(ETCD_ENDPOINTS),
          Optional.ofNullable(values.value(ETCD_AUTH_USERNAME)),
          Optional.ofNullable(values.value(ETCD_AUTH_PASSWORD)),
          Optional.ofNullable(values.value(ETCD_AUTH_CA)),
          Optional.ofNullable(values.value(ETCD_AUTH_CLIENT_CERT)),
          Optional.ofNullable(values.value(ETCD_AUTH_CLIENT_KEY)));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(
          e.getMessage()
              + " (--etcd-auth-username/--etcd-auth-password, --etcd-auth-ca,"
              + " --etcd-auth-client-cert/--etcd-auth-client-key)");
    }
  }
}
