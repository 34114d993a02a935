package io.kvrouter.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkerConfigLoaderTest {
  private static final Map<String, List<String>> MINIMAL =
      Map.of("port", List.of("0"), "model-name", List.of("m"));

  @TempDir Path dir;

  private static Map<String, List<String>> minimalAnd(String... nameValues) {
    Map<String, List<String>> flags = new HashMap<>(MINIMAL);
    for (int i = 0; i < nameValues.length; i += 2) {
      flags.put(nameValues[i], List.of(nameValues[i + 1]));
    }
    return flags;
  }

  private static WorkerConfig load(Map<String, List<String>> flags) {
    return WorkerConfigLoader.load(flags, Map.of(), null);
  }

  @Test
  void defaults_areAFixedDelayWorkerWithoutEvents() {
    WorkerConfig config = load(MINIMAL);
    assertThat(config.host()).isEqualTo("0.0.0.0");
    assertThat(config.modelPath()).isNull();
    assertThat(config.systemPort()).isEmpty();
    assertThat(config.tcp().maxMessageSize()).isEqualTo(TcpConfig.DEFAULT_MAX_MESSAGE_SIZE);
    assertThat(config.engine())
        .isEqualTo(
            new SimulatedEngineConfig(
                EngineTiming.FIXED,
                Duration.ofMillis(50),
                Duration.ofMillis(10),
                1,
                256,
                8192,
                0.01,
                16,
                16384,
                1));
    WorkerEventsConfig events = config.events();
    assertThat(events.plane()).isEqualTo(EventPlaneKind.ZMQ);
    assertThat(events.format()).isEqualTo(KvEventsFormat.VLLM);
    assertThat(events.kvEventsPort()).isEmpty();
    assertThat(events.encoding()).isEqualTo(KvEventsEncoding.MAP);
    assertThat(Parsers.isDynamoWorkerId(events.workerId())).isTrue();
    assertThat(config.requestPlane()).isEqualTo(RequestPlaneKind.TCP);
  }

  @Test
  void requestPlane_isDynamosSetting() {
    assertThat(
            WorkerConfigLoader.load(MINIMAL, Map.of("DYN_REQUEST_PLANE", "nats"), null)
                .requestPlane())
        .isEqualTo(RequestPlaneKind.NATS);
    Map<String, List<String>> flags = new java.util.HashMap<>(MINIMAL);
    flags.put("request-plane", List.of("udp"));
    assertThatThrownBy(() -> load(flags))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("request-plane")
        .hasMessageContaining("tcp, nats, http");
  }

  @Test
  void httpRequestPlane_readsDynamosServerSettings() {
    WorkerConfig defaults =
        WorkerConfigLoader.load(MINIMAL, Map.of("DYN_REQUEST_PLANE", "http"), null);
    assertThat(defaults.requestPlane()).isEqualTo(RequestPlaneKind.HTTP);
    assertThat(defaults.httpRpc()).isEqualTo(new HttpRpcServerConfig(null, 8888, "/v1/rpc"));

    WorkerConfig set =
        WorkerConfigLoader.load(
            MINIMAL,
            Map.of(
                "DYN_REQUEST_PLANE", "http",
                "DYN_HTTP_RPC_HOST", "10.1.2.3",
                "DYN_HTTP_RPC_PORT", "9001",
                "DYN_HTTP_RPC_ROOT_PATH", "/rpc/v2"),
            null);
    assertThat(set.httpRpc()).isEqualTo(new HttpRpcServerConfig("10.1.2.3", 9001, "/rpc/v2"));

    for (String bad : new String[] {"v1/rpc", "/v1/rpc/", "/v1?x"}) {
      assertThatThrownBy(
              () ->
                  WorkerConfigLoader.load(
                      MINIMAL,
                      Map.of("DYN_REQUEST_PLANE", "http", "DYN_HTTP_RPC_ROOT_PATH", bad),
                      null))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("DYN_HTTP_RPC_ROOT_PATH");
    }
    assertThatThrownBy(
            () ->
                WorkerConfigLoader.load(
                    MINIMAL,
                    Map.of("DYN_REQUEST_PLANE", "http", "DYN_HTTP_RPC_PORT", "70000"),
                    null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("DYN_HTTP_RPC_PORT");
  }

  @Test
  void precedence_optionBeatsVariableBeatsFileBeatsDefault() throws IOException {
    Path file = write("host: 10.0.0.3\nsystem-port: 9103\nnum-gpu-blocks: 300\nport: 9003\n");
    Map<String, String> env = Map.of("DYN_TCP_RPC_HOST", "10.0.0.2", "DYN_TCP_RPC_PORT", "9002");
    Map<String, List<String>> flags =
        Map.of("host", List.of("10.0.0.1"), "model-name", List.of("m"));

    WorkerConfig config = WorkerConfigLoader.load(flags, env, file);

    assertThat(config.host()).isEqualTo("10.0.0.1");
    assertThat(config.port()).isEqualTo(9002);
    assertThat(config.systemPort()).isEqualTo(OptionalInt.of(9103));
    assertThat(config.engine().numGpuBlocks()).isEqualTo(300);
    assertThat(config.engine().maxNumSeqs()).isEqualTo(256);
  }

  @Test
  void invalidValue_namesSettingSourceAndValidValues() {
    assertThatThrownBy(
            () -> WorkerConfigLoader.load(MINIMAL, Map.of("DYN_SYSTEM_PORT", "ninety"), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'ninety'")
        .hasMessageContaining("--system-port")
        .hasMessageContaining("DYN_SYSTEM_PORT")
        .hasMessageContaining("0 to 65535");
    for (String[] bad :
        new String[][] {
          {"timing-model", "exact"},
          {"ttft-ms", "-1"},
          {"speedup-ratio", "0"},
          {"max-num-seqs", "0"},
          {"watermark", "1"},
          {"num-gpu-blocks", "0"},
          {"kv-cache-block-size", "2048"},
          {"data-parallel-size", "257"},
          {"vllm-encoding", "json"},
          {"kv-events-drop-rate", "1"},
          {"kv-events-format", "json"},
          {"worker-id", "07"},
          {"namespace", "a.b"},
        }) {
      assertThatThrownBy(() -> load(minimalAnd(bad[0], bad[1])))
          .as(bad[0])
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("Invalid value '" + bad[1] + "' for --" + bad[0]);
    }
  }

  @Test
  void acceptedResponseStreams_areBothUnlessOneIsNamed() {
    assertThat(load(MINIMAL).acceptedResponseStreams())
        .containsExactlyInAnyOrder(ResponseStreamKind.CALL_HOME, ResponseStreamKind.MUX);
    assertThat(load(minimalAnd("accept-response-stream", "call-home")).acceptedResponseStreams())
        .containsExactly(ResponseStreamKind.CALL_HOME);
    assertThat(load(minimalAnd("accept-response-stream", "mux")).acceptedResponseStreams())
        .containsExactly(ResponseStreamKind.MUX);
    assertThatThrownBy(() -> load(minimalAnd("accept-response-stream", "both")))
        .hasMessageContaining("accept-response-stream");
  }

  @Test
  void portAndModelName_areRequired() {
    assertThatThrownBy(() -> load(Map.of("model-name", List.of("m"))))
        .hasMessage("--port is required (or set DYN_TCP_RPC_PORT)");
    assertThatThrownBy(() -> load(Map.of("port", List.of("0"))))
        .hasMessage("--model-name is required");
  }

  @Test
  void speedupRatio_choosesTheMockerTimingModel_unlessFixedIsAskedFor() {
    SimulatedEngineConfig timed = load(minimalAnd("speedup-ratio", "4")).engine();
    assertThat(timed.timing()).isEqualTo(EngineTiming.MOCKER);
    assertThat(timed.speedupRatio()).isEqualTo(4.0);
    assertThat(load(minimalAnd("speedup-ratio", "4", "timing-model", "fixed")).engine().timing())
        .isEqualTo(EngineTiming.FIXED);
    assertThat(load(minimalAnd("timing-model", "mocker")).engine().speedupRatio()).isEqualTo(1.0);
  }

  @Test
  void kafkaPlane_carriesDynamosFormat_toItsBrokers_withoutZmqPorts() {
    WorkerEventsConfig events =
        load(minimalAnd("event-plane", "kafka", "kafka-bootstrap-servers", "k1:9092")).events();
    assertThat(events.plane()).isEqualTo(EventPlaneKind.KAFKA);
    assertThat(events.format()).isEqualTo(KvEventsFormat.DYNAMO);
    assertThat(events.kafka()).isEqualTo(new KafkaConfig("k1:9092", "kvrouter", null));
    assertThatThrownBy(() -> load(minimalAnd("event-plane", "kafka", "kv-events-format", "vllm")))
        .hasMessageContaining("--event-plane kafka carries --kv-events-format dynamo, not vllm");
    assertThatThrownBy(() -> load(minimalAnd("event-plane", "kafka", "kv-events-port", "5557")))
        .hasMessageContaining("are for --event-plane zmq");
  }

  @Test
  void natsPlane_carriesDynamosFormat_withDynamosVariables() {
    WorkerEventsConfig events =
        WorkerConfigLoader.load(
                minimalAnd("worker-id", "18446744073709551615", "nats-event-format", "json"),
                Map.of(
                    "DYN_EVENT_PLANE", "nats",
                    "NATS_SERVER", "nats://10.0.0.9:4222",
                    "DYN_NAMESPACE", "prod",
                    "DYN_COMPONENT", "decode",
                    "DYN_DURABLE_KV_EVENTS", "true"),
                null)
            .events();
    assertThat(events)
        .isEqualTo(
            new WorkerEventsConfig(
                EventPlaneKind.NATS,
                KvEventsFormat.DYNAMO,
                OptionalInt.empty(),
                OptionalInt.empty(),
                OptionalInt.empty(),
                KvEventsEncoding.MAP,
                0,
                NatsServer.plain("nats://10.0.0.9:4222"),
                "prod",
                "decode",
                "generate",
                NatsEventFormat.JSON,
                true,
                "18446744073709551615",
                KafkaConfig.DEFAULTS));
    WorkerEventsConfig current =
        load(minimalAnd("event-plane", "nats", "endpoint", "serve")).events();
    assertThat(current.natsFormat())
        .as("Dynamo v1.5's by default")
        .isEqualTo(NatsEventFormat.ENVELOPE);
    assertThat(current.endpoint()).isEqualTo("serve");
  }

  @Test
  void natsEventSettings_thatDoNotFitTogether_areRejected() {
    for (var bad :
        Map.of(
                List.of("event-plane", "nats", "durable-kv-events", "true"),
                "--durable-kv-events needs --nats-event-format json",
                List.of("event-plane", "nats", "nats-event-format", "msgpack"),
                "--nats-event-format",
                List.of("event-plane", "nats", "endpoint", "a.b"),
                "--endpoint")
            .entrySet()) {
      assertThatThrownBy(() -> load(minimalAnd(bad.getKey().toArray(String[]::new))))
          .as(bad.getKey().toString())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(bad.getValue());
    }
  }

  @Test
  void eventSettings_thatDoNotFitTogether_areRejected() {
    for (var bad :
        Map.of(
                List.of("kv-replay-port", "5558"),
                "--kv-replay-port needs --kv-events-port",
                List.of("data-parallel-size", "2", "kv-events-port", "0"),
                "--data-parallel-size above 1 needs fixed --kv-events-port and --kv-replay-port",
                List.of("data-parallel-size", "3", "kv-events-port", "65534"),
                "--kv-events-port + --data-parallel-size - 1 is above 65535",
                List.of("kv-events-format", "dynamo"),
                "--kv-events-format dynamo on --event-plane zmq needs --kv-events-port",
                List.of("kv-events-format", "dynamo", "kv-events-port", "0", "kv-replay-port", "0"),
                "--kv-replay-port is vLLM's replay socket",
                List.of("kv-events-port", "0", "kv-metrics-port", "0"),
                "--kv-metrics-port is for --kv-events-format dynamo on --event-plane zmq",
                List.of("event-plane", "nats", "kv-events-format", "vllm"),
                "--event-plane nats carries --kv-events-format dynamo, not vllm",
                List.of("event-plane", "nats", "kv-events-port", "5557"),
                "--kv-events-port and --kv-replay-port are for --event-plane zmq",
                List.of("durable-kv-events", "true"),
                "--durable-kv-events needs --event-plane nats")
            .entrySet()) {
      assertThatThrownBy(() -> load(minimalAnd(bad.getKey().toArray(String[]::new))))
          .as(bad.getKey().toString())
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(bad.getValue());
    }
    WorkerEventsConfig dynamoOnZmq =
        load(minimalAnd("kv-events-format", "dynamo", "kv-events-port", "5557")).events();
    assertThat(dynamoOnZmq.dynamoOnZmq()).isTrue();
    assertThat(load(minimalAnd("data-parallel-size", "3", "kv-events-port", "65533")).events())
        .extracting(WorkerEventsConfig::kvEventsPort)
        .isEqualTo(OptionalInt.of(65533));
  }

  @Test
  void maxMessageSize_isTheRoutersSetting() {
    WorkerConfig config =
        WorkerConfigLoader.load(MINIMAL, Map.of("DYN_TCP_MAX_MESSAGE_SIZE", "4096"), null);
    assertThat(config.tcp().maxMessageSize()).isEqualTo(4096);
    assertThatThrownBy(
            () -> WorkerConfigLoader.load(MINIMAL, Map.of("DYN_TCP_MAX_MESSAGE_SIZE", "12"), null))
        .hasMessageContaining("DYN_TCP_MAX_MESSAGE_SIZE");
  }

  @Test
  void routerOnlyKey_inTheFile_isRejected() throws IOException {
    Path file = write("port: 1\nmodel-name: m\nrouter-mode: kv\n");
    assertThatThrownBy(() -> WorkerConfigLoader.load(Map.of(), Map.of(), file))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("Unknown key 'router-mode'");
  }

  @Test
  void discovery_isStaticByDefault() {
    assertThat(load(MINIMAL).etcdDiscovery()).isEmpty();
  }

  @Test
  void etcdDiscovery_takesDynamosVariables() {
    WorkerConfig config =
        WorkerConfigLoader.load(
            MINIMAL,
            Map.of(
                "DYN_DISCOVERY_BACKEND", "etcd",
                "ETCD_ENDPOINTS", "http://10.0.0.1:2379, https://etcd-2:2379",
                "ETCD_AUTH_USERNAME", "root",
                "ETCD_AUTH_PASSWORD", "secret",
                "ETCD_AUTH_CA", "/etc/etcd/ca.pem"),
            null);
    EtcdConfig etcd = config.etcdDiscovery().orElseThrow();
    assertThat(etcd.endpoints())
        .containsExactly(
            java.net.URI.create("http://10.0.0.1:2379"),
            java.net.URI.create("https://etcd-2:2379"));
    assertThat(etcd.username()).contains("root");
    assertThat(etcd.password()).contains("secret");
    assertThat(etcd.ca()).contains("/etc/etcd/ca.pem");
    assertThat(etcd.tls()).isTrue();
  }

  @Test
  void etcdDiscovery_defaultsToDynamosEndpoint() {
    EtcdConfig etcd = load(minimalAnd("discovery-backend", "etcd")).etcdDiscovery().orElseThrow();
    assertThat(etcd.endpoints()).containsExactly(java.net.URI.create("http://localhost:2379"));
    assertThat(etcd.tls()).isFalse();
  }

  @Test
  void etcdDiscovery_refusesAWorkerId_whichIsTheLeaseId() {
    assertThatThrownBy(() -> load(minimalAnd("discovery-backend", "etcd", "worker-id", "7")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--worker-id cannot be given with --discovery-backend etcd");
  }

  @Test
  void etcdDiscovery_badEndpointsAndHalfPairs_areNamed() {
    assertThatThrownBy(
            () -> load(minimalAnd("discovery-backend", "etcd", "etcd-endpoints", "localhost:2379")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("etcd-endpoints");
    assertThatThrownBy(
            () -> load(minimalAnd("discovery-backend", "etcd", "etcd-auth-username", "root")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("user name and password");
    assertThatThrownBy(
            () -> load(minimalAnd("discovery-backend", "etcd", "etcd-auth-client-cert", "/c.pem")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--etcd-auth-client-cert/--etcd-auth-client-key");
    assertThatThrownBy(() -> load(minimalAnd("discovery-backend", "kubernetes")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--pod-name is required (or set POD_NAME)");
  }

  @Test
  void kubeDiscovery_takesThePodFromDynamosVariables() {
    WorkerConfig config =
        WorkerConfigLoader.load(
            MINIMAL,
            Map.of(
                "DYN_DISCOVERY_BACKEND", "kubernetes",
                "POD_NAME", "worker-0",
                "POD_UID", "uid-0",
                "POD_NAMESPACE", "dynamo-ns"),
            null);
    KubeWorkerIdentity pod = config.kubeDiscovery().orElseThrow();
    assertThat(pod.podName()).isEqualTo("worker-0");
    assertThat(pod.podUid()).isEqualTo("uid-0");
    assertThat(pod.discovery().namespace()).contains("dynamo-ns");
    assertThat(config.etcdDiscovery()).isEmpty();
    assertThatThrownBy(
            () ->
                load(
                    minimalAnd(
                        "discovery-backend",
                        "kubernetes",
                        "pod-name",
                        "w",
                        "pod-uid",
                        "u",
                        "worker-id",
                        "7")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("derived from the pod's name");
    assertThatThrownBy(
            () ->
                load(
                    minimalAnd(
                        "discovery-backend",
                        "kubernetes",
                        "pod-name",
                        "w",
                        "pod-uid",
                        "u",
                        "kube-namespace",
                        "Not_A_Namespace")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--kube-namespace");
  }

  @Test
  void httpsOnAnEngineApi_vllmsFlags_refusedWhereTheyCannotApply() throws IOException {
    String pem = Files.writeString(dir.resolve("e.pem"), "").toString();
    Map<String, List<String>> https =
        Map.of(
            "port", List.of("9001"),
            "model-name", List.of("m"),
            "api", List.of("openai"),
            "ssl-certfile", List.of(pem),
            "ssl-keyfile", List.of(pem),
            "ssl-ca-certs", List.of(pem),
            "ssl-cert-reqs", List.of("2"));
    assertThat(WorkerConfigLoader.load(https, Map.of(), null).apiTls())
        .contains(new EngineServerTls(Path.of(pem), Path.of(pem), Path.of(pem), 2));
    Map<String, List<String>> dynamo = new java.util.HashMap<>(https);
    dynamo.put("api", List.of("dynamo"));
    assertThatThrownBy(() -> WorkerConfigLoader.load(dynamo, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--tcp-tls-cert-path");
    Map<String, List<String>> noCa = new java.util.HashMap<>(https);
    noCa.remove("ssl-ca-certs");
    assertThatThrownBy(() -> WorkerConfigLoader.load(noCa, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ssl-cert-reqs 2 needs --ssl-ca-certs");
    Map<String, List<String>> noKey = new java.util.HashMap<>(https);
    noKey.remove("ssl-keyfile");
    assertThatThrownBy(() -> WorkerConfigLoader.load(noKey, Map.of(), null))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("--ssl-certfile and --ssl-keyfile must be given together");
  }

  /** config/worker.yaml documents every setting, and its example values are all valid. */
  @Test
  void exampleFile_documentsEverySettingWithValidValues() throws IOException {
    List<String> lines = Files.readAllLines(ExampleFiles.of("worker.yaml"));
    for (Setting<?> setting : WorkerSettings.ALL) {
      assertThat(lines).as(setting.name()).anyMatch(l -> l.startsWith("# " + setting.name() + ":"));
    }
    List<String> examples =
        lines.stream()
            .filter(l -> l.matches("^# [a-z-]+:.*$"))
            .map(l -> l.substring(2))
            .collect(Collectors.toList());
    for (String example : examples) {
      String name = example.substring(0, example.indexOf(':'));
      Setting<?> setting =
          WorkerSettings.ALL.stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
      setting.parse(example.substring(name.length() + 1));
    }
    Path model = Files.createDirectory(dir.resolve("model"));
    Path kafkaClient = Files.writeString(dir.resolve("kafka-client.properties"), "");
    String file =
        examples.stream()
            .map(l -> l.startsWith("model-path:") ? "model-path: " + model : l)
            .map(
                l ->
                    l.startsWith("kafka-client-config:")
                        ? "kafka-client-config: " + kafkaClient
                        : l)
            // Dynamo's load publisher is for Dynamo's format, whose recovery needs no replay socket
            .filter(l -> !l.startsWith("kv-metrics-port:"))
            .filter(l -> !l.startsWith("ssl-")) // HTTPS is for --api openai: tested above
            // files and a tls:// NATS URL: ConfigLoaderTest loads the same rows of router.yaml
            .filter(
                l ->
                    TransportSecuritySettings.ALL.stream()
                        .noneMatch(s -> l.startsWith(s.name() + ":")))
            .collect(Collectors.joining("\n"));
    WorkerConfig config = WorkerConfigLoader.load(Map.of(), Map.of(), write(file));
    assertThat(config.port()).isEqualTo(9001);
    assertThat(config.engine().timing()).isEqualTo(EngineTiming.MOCKER);
    assertThat(config.events().kvReplayPort()).hasValue(5558);
    assertThat(config.events().workerId()).isEqualTo("1");
  }

  private Path write(String yaml) throws IOException {
    return Files.writeString(Files.createTempFile(dir, "worker", ".yaml"), yaml);
  }
}
