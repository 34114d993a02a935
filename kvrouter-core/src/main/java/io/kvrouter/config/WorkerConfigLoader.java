package io.kvrouter.config;

import static io.kvrouter.config.WorkerSettings.*;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Builds the {@link WorkerConfig} of {@code router.jar worker} from the {@link WorkerSettings} in
 * their sources (flag, then environment variable, then the YAML file, then the default, as for the
 * router) and checks them against each other. An invalid value or combination fails with a {@link
 * ConfigException} naming the setting.
 */
public final class WorkerConfigLoader {
  private final SettingValues values;

  private WorkerConfigLoader(SettingValues values) {
    this.values = values;
  }

  /**
   * @param flags raw flag values by setting name (as given on the command line)
   * @param env the process environment
   * @param configFile the YAML file of {@code --config}, or {@code null}
   */
  public static WorkerConfig load(
      Map<String, List<String>> flags, Map<String, String> env, Path configFile) {
    return new WorkerConfigLoader(SettingValues.of(flags, env, configFile, WorkerSettings.ALL))
        .build();
  }

  private WorkerConfig build() {
    int port = required(PORT);
    String modelName = required(MODEL_NAME);
    ModelLocation model = values.modelLocation(MODEL_PATH);
    int dataParallelSize = values.value(DATA_PARALLEL_SIZE);
    Integer systemPort = values.value(SYSTEM_PORT);
    return new WorkerConfig(
        values.value(HOST),
        port,
        modelName,
        model == null ? null : model.folder(),
        EngineKnobs.WORKER.read(values, values.value(KV_CACHE_BLOCK_SIZE), dataParallelSize),
        events(dataParallelSize),
        optional(systemPort),
        TcpConfig.defaults("127.0.0.1", values.value(TCP_MAX_MESSAGE_SIZE))
            .withTls(TransportSecuritySettings.tcpTls(values)),
        values.value(REQUEST_PLANE),
        httpRpc(),
        values.value(ACCEPT_RESPONSE_STREAM),
        etcdDiscovery(),
        kubeDiscovery(),
        api(),
        apiTls());
  }

  /** Where Dynamo's HTTP request plane is served: {@code --http-rpc-*}, read with it only. */
  private HttpRpcServerConfig httpRpc() {
    if (values.value(REQUEST_PLANE) != RequestPlaneKind.HTTP) {
      return HttpRpcServerConfig.DEFAULTS;
    }
    return new HttpRpcServerConfig(
        values.value(HTTP_RPC_HOST), values.value(HTTP_RPC_PORT), values.value(HTTP_RPC_ROOT_PATH));
  }

  /**
   * With {@code --discovery-backend etcd} the worker's Dynamo id is its lease id, granted at start,
   * and with {@code kubernetes} its pod name's hash, so a {@code --worker-id} cannot be honoured.
   */
  private void refuseWorkerId(DiscoveryBackend backend) {
    if (values.value(WORKER_ID) != null) {
      fail(
          WORKER_ID.flag()
              + " cannot be given with "
              + DiscoverySettings.DISCOVERY_BACKEND.flag()
              + " "
              + backend.configName()
              + ": the worker id is then "
              + (backend == DiscoveryBackend.ETCD
                  ? "the etcd lease id, as a Dynamo worker's is"
                  : "derived from the pod's name, as a Dynamo worker's is"));
    }
  }

  private Optional<EtcdConfig> etcdDiscovery() {
    if (values.value(DiscoverySettings.DISCOVERY_BACKEND) != DiscoveryBackend.ETCD) {
      return Optional.empty();
    }
    refuseWorkerId(DiscoveryBackend.ETCD);
    return Optional.of(DiscoverySettings.etcd(values));
  }

  /** HTTPS on a plain engine's API, with vLLM's flags; refused with the Dynamo API. */
  private Optional<EngineServerTls> apiTls() {
    Path cert = values.value(SSL_CERTFILE);
    Path key = values.value(SSL_KEYFILE);
    Path ca = values.value(SSL_CA_CERTS);
    int reqs = values.value(SSL_CERT_REQS);
    if (cert == null && key == null) {
      if (ca != null || reqs != 0) {
        fail(SSL_CA_CERTS.flag() + " and " + SSL_CERT_REQS.flag() + " need " + SSL_CERTFILE.flag());
      }
      return Optional.empty();
    }
    TransportSecuritySettings.pair(SSL_CERTFILE, cert, SSL_KEYFILE, key);
    if (values.value(API) == WorkerApi.DYNAMO) {
      fail(
          SSL_CERTFILE.flag()
              + " is HTTPS on --api openai or sglang; Dynamo's request plane takes"
              + " --tcp-tls-cert-path");
    }
    if (reqs > 0 && ca == null) {
      fail(SSL_CERT_REQS.flag() + " " + reqs + " needs " + SSL_CA_CERTS.flag());
    }
    return Optional.of(
        new EngineServerTls(
            TransportSecuritySettings.readable(values, SSL_CERTFILE),
            TransportSecuritySettings.readable(values, SSL_KEYFILE),
            TransportSecuritySettings.readable(values, SSL_CA_CERTS),
            reqs));
  }

  /**
   * What the worker serves on. A vLLM-style worker is what a {@code vllm serve} is: it registers
   * nowhere, serves no Dynamo request plane, and publishes vLLM's KV events.
   */
  private WorkerApi api() {
    WorkerApi api = values.value(API);
    if (api != WorkerApi.DYNAMO) {
      if (values.value(DiscoverySettings.DISCOVERY_BACKEND) != DiscoveryBackend.STATIC) {
        fail(
            API.flag()
                + " "
                + api.configName()
                + " registers nowhere: drop "
                + DiscoverySettings.DISCOVERY_BACKEND.flag());
      }
      if (values.value(REQUEST_PLANE) != RequestPlaneKind.TCP) {
        fail(
            API.flag()
                + " "
                + api.configName()
                + " serves HTTP only: drop "
                + REQUEST_PLANE.flag());
      }
      if (values.value(EVENT_PLANE) != EventPlaneKind.ZMQ
          || values.value(KV_EVENTS_FORMAT) == KvEventsFormat.DYNAMO) {
        fail(
            API.flag()
                + " "
                + api.configName()
                + " publishes KV events as vLLM does (ZMQ, vLLM's format): drop "
                + EVENT_PLANE.flag()
                + " and "
                + KV_EVENTS_FORMAT.flag());
      }
    }
    return api;
  }

  /** The pod the worker registers as, which the Downward API names in Kubernetes. */
  private Optional<KubeWorkerIdentity> kubeDiscovery() {
    if (values.value(DiscoverySettings.DISCOVERY_BACKEND) != DiscoveryBackend.KUBERNETES) {
      return Optional.empty();
    }
    refuseWorkerId(DiscoveryBackend.KUBERNETES);
    return Optional.of(
        new KubeWorkerIdentity(
            required(DiscoverySettings.POD_NAME),
            required(DiscoverySettings.POD_UID),
            DiscoverySettings.kube(values)));
  }

  private <T> T required(Setting<T> setting) {
    T value = values.value(setting);
    if (value == null) {
      throw new ConfigException(
          setting.flag()
              + " is required"
              + (setting.envVar() == null ? "" : " (or set " + setting.envVar() + ")"));
    }
    return value;
  }

  private WorkerEventsConfig events(int dataParallelSize) {
    EventPlaneKind plane = values.value(EVENT_PLANE);
    KvEventsFormat format = values.value(KV_EVENTS_FORMAT);
    if (format == null) {
      format = plane == EventPlaneKind.ZMQ ? KvEventsFormat.VLLM : KvEventsFormat.DYNAMO;
    }
    String workerId = values.value(WORKER_ID);
    WorkerEventsConfig events =
        new WorkerEventsConfig(
            plane,
            format,
            optional(values.value(KV_EVENTS_PORT)),
            optional(values.value(KV_REPLAY_PORT)),
            optional(values.value(KV_METRICS_PORT)),
            values.value(VLLM_ENCODING),
            values.value(KV_EVENTS_DROP_RATE),
            TransportSecuritySettings.nats(values, values.value(NATS_SERVER)),
            values.value(NAMESPACE),
            values.value(COMPONENT),
            values.value(ENDPOINT),
            values.value(NATS_EVENT_FORMAT),
            values.value(DURABLE_KV_EVENTS),
            workerId == null ? randomWorkerId() : workerId,
            ConfigLoader.kafka(values));
    checkPlane(events);
    ConfigLoader.checkKafkaTopics(
        events.plane(), events.namespace(), events.component(), events.endpoint());
    checkPorts(events, dataParallelSize);
    return events;
  }

  /** The plane carries the format, and each port and switch is for the plane and format given. */
  private static void checkPlane(WorkerEventsConfig events) {
    if (events.plane() != EventPlaneKind.ZMQ) {
      String plane = events.plane().configName();
      if (events.format() == KvEventsFormat.VLLM) {
        fail(
            EVENT_PLANE.flag()
                + " "
                + plane
                + " carries "
                + KV_EVENTS_FORMAT.flag()
                + " dynamo, not vllm");
      }
      if (events.kvEventsPort().isPresent() || events.kvReplayPort().isPresent()) {
        fail(
            KV_EVENTS_PORT.flag()
                + " and "
                + KV_REPLAY_PORT.flag()
                + " are for "
                + EVENT_PLANE.flag()
                + " zmq");
      }
    }
    if (events.plane() == EventPlaneKind.NATS) {
      if (events.durable() && events.natsFormat() == NatsEventFormat.ENVELOPE) {
        fail(
            DURABLE_KV_EVENTS.flag()
                + " needs "
                + NATS_EVENT_FORMAT.flag()
                + " json: Dynamo v1.5 workers publish envelopes on core NATS only");
      }
    } else if (events.durable()) {
      fail(DURABLE_KV_EVENTS.flag() + " needs " + EVENT_PLANE.flag() + " nats");
    }
    if (events.dynamoOnZmq()) {
      if (events.kvEventsPort().isEmpty()) {
        fail(
            KV_EVENTS_FORMAT.flag()
                + " dynamo on "
                + EVENT_PLANE.flag()
                + " zmq needs "
                + KV_EVENTS_PORT.flag());
      }
      if (events.kvReplayPort().isPresent()) {
        fail(
            KV_REPLAY_PORT.flag()
                + " is vLLM's replay socket; with "
                + KV_EVENTS_FORMAT.flag()
                + " dynamo the router asks the worker over the request plane instead");
      }
    } else if (events.kvMetricsPort().isPresent()) {
      fail(
          KV_METRICS_PORT.flag()
              + " is for "
              + KV_EVENTS_FORMAT.flag()
              + " dynamo on "
              + EVENT_PLANE.flag()
              + " zmq");
    }
  }

  /**
   * vLLM's publishers of rank r bind the given ports + r (as vLLM does), so those must be fixed and
   * fit; Dynamo's ZMQ publisher is one socket for every rank.
   */
  private static void checkPorts(WorkerEventsConfig events, int dataParallelSize) {
    if (events.kvReplayPort().isPresent() && events.kvEventsPort().isEmpty()) {
      fail(KV_REPLAY_PORT.flag() + " needs " + KV_EVENTS_PORT.flag());
    }
    if (events.dynamoOnZmq()) {
      return;
    }
    checkRankPorts(KV_EVENTS_PORT, events.kvEventsPort(), dataParallelSize);
    checkRankPorts(KV_REPLAY_PORT, events.kvReplayPort(), dataParallelSize);
  }

  private static void checkRankPorts(Setting<Integer> setting, OptionalInt port, int ranks) {
    if (port.isEmpty()) {
      return;
    }
    if (ranks > 1 && port.getAsInt() == 0) {
      fail(
          DATA_PARALLEL_SIZE.flag()
              + " above 1 needs fixed "
              + KV_EVENTS_PORT.flag()
              + " and "
              + KV_REPLAY_PORT.flag()
              + " (rank r uses the port + r)");
    }
    if (port.getAsInt() + ranks - 1 > 65535) {
      fail(setting.flag() + " + " + DATA_PARALLEL_SIZE.flag() + " - 1 is above 65535");
    }
  }

  private static void fail(String message) {
    throw new ConfigException(message);
  }

  private static OptionalInt optional(Integer value) {
    return value == null ? OptionalInt.empty() : OptionalInt.of(value);
  }

  /** A random Dynamo worker id, below 2^63 as Dynamo's are in practice. */
  private static String randomWorkerId() {
    return Long.toString(new SecureRandom().nextLong() & Long.MAX_VALUE);
  }
}
