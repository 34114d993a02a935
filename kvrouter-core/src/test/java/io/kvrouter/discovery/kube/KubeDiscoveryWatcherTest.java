package io.kvrouter.discovery.kube;

import static io.kvrouter.discovery.DiscoveryRecords.card;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.CustomResourceDefinitionContext;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.kvrouter.config.KubeDiscoveryConfig;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.DiscoveryRecords;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.discovery.EventScope;
import io.kvrouter.discovery.EventTransport;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.discovery.Transport;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link KubeDiscoveryWatcher} against fabric8's mock API server in CRUD mode, holding real {@code
 * DynamoWorkerMetadata} resources and EndpointSlices.
 */
class KubeDiscoveryWatcherTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);
  private static final String NS = "dynamo-ns";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final KubernetesCrudDispatcher store = new KubernetesCrudDispatcher();
  private final List<KubernetesMockServer> servers = new ArrayList<>();
  private KubernetesMockServer server;
  private KubernetesClient client;
  private final RecordingListener listener = new RecordingListener();
  private KubeDiscoveryWatcher watcher;

  @BeforeEach
  void startServer() {
    server = serve(0);
    client = server.createClient();
  }

  /** A mock API server on {@code port} (0: any) over the test's one store of resources. */
  private KubernetesMockServer serve(int port) {
    KubernetesMockServer s =
        new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), store, false);
    s.init(InetAddress.getLoopbackAddress(), port);
    s.expectCustomResource(
        new CustomResourceDefinitionContext.Builder()
            .withGroup("nvidia.com")
            .withVersion("v1alpha1")
            .withKind("DynamoWorkerMetadata")
            .withPlural("dynamoworkermetadatas")
            .withScope("Namespaced")
            .build());
    servers.add(s);
    return s;
  }

  @AfterEach
  void stop() {
    if (watcher != null) {
      watcher.close();
    }
    client.close();
    servers.forEach(KubeDiscoveryWatcherTest::destroy);
  }

  /**
   * Stops a mock API server. Its shutdown waits 10 s for its own event loop, which on a loaded
   * machine can still be parked in the mock's handling of a closed watch (fabric8's {@code
   * WatchEventsListener.onClosed} waits for an executor on the event loop): that is the test
   * double's teardown, not what these tests check, so it is logged rather than failing the test.
   */
  private static void destroy(KubernetesMockServer server) {
    try {
      server.destroy();
    } catch (IllegalStateException e) {
      System.err.println("mock API server still stopping after its shutdown wait: " + e);
    }
  }

  private void startWatcher(KubernetesMockServer on) {
    watcher =
        KubeDiscoveryWatcher.start(
            on.createClient().getConfiguration(), KubeDiscoveryConfig.inNamespace(NS), listener);
  }

  @Test
  void aReadyPodWithItsResource_isUp_inOrder_onOneThread_andGoesDownWhenNotReady() {
    Worker a = Worker.current("vllm-agg-0-worker-7c9d8f6b5-x2k4q", 4805132984734812L, 7001);
    create(a.resource());
    createSlice("vllm-agg-0-worker-abcde", Map.of(a.pod, a.uid), Set.of(a.pod));
    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view()).isEqualTo(a.records());
    assertThat(listener.events())
        .containsExactly(
            "instance up " + a.instance.key(),
            "card up " + a.card.key(),
            "channel up " + a.channel.key(),
            "synced");

    editSlice("vllm-agg-0-worker-abcde", Map.of(a.pod, a.uid), Set.of()); // readiness probe fails
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
    assertThat(listener.events().subList(4, listener.events().size()))
        .containsExactly(
            "instance down " + a.instance.key(),
            "card down " + a.card.key(),
            "channel down " + a.channel.key());

    editSlice("vllm-agg-0-worker-abcde", Map.of(a.pod, a.uid), Set.of(a.pod)); // ready again
    await().atMost(PATIENCE).until(() -> listener.view().equals(a.records()));
    assertThat(listener.threads()).containsOnly("kube-discovery-watcher");
  }

  @Test
  void aResourceAppearingForAReadyPod_comesUp_andItsDeletionTakesItDown() {
    Worker b = Worker.current("worker-b", 1186445869714687L, 7002);
    createSlice("workers-1", Map.of(b.pod, b.uid), Set.of(b.pod));
    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view()).isEmpty();

    create(b.resource());
    await().atMost(PATIENCE).until(() -> listener.view().equals(b.records()));

    client
        .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
        .inNamespace(NS)
        .withName(b.pod)
        .delete();
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
    assertThat(listener.events())
        .containsSubsequence(
            "instance up " + b.instance.key(),
            "instance down " + b.instance.key(),
            "card down " + b.card.key(),
            "channel down " + b.channel.key());
  }

  @Test
  void onlyAReadyPodOwningItsReadableResource_counts() {
    Worker notReady = Worker.current("worker-not-ready", 11, 7011);
    Worker unlabelled = Worker.current("worker-unlabelled", 12, 7012);
    Worker stale = Worker.current("worker-restarted", 13, 7013); // its resource is the old pod's
    Worker unreadable = Worker.current("worker-unreadable", 14, 7014);
    Worker noResource = Worker.current("worker-without-resource", 15, 7015);
    Worker counted = Worker.current("worker-counted", 16, 7016);
    Stream.of(notReady, unlabelled, stale, counted).forEach(w -> create(w.resource()));
    create(unreadable.resourceWith(JSON.createObjectNode().put("endpoints", "not a map")));
    createSlice(
        "workers-1",
        Map.of(
            notReady.pod, notReady.uid,
            stale.pod, "uid-of-the-new-pod",
            unreadable.pod, unreadable.uid,
            noResource.pod, noResource.uid,
            counted.pod, counted.uid),
        Set.of(stale.pod, unreadable.pod, noResource.pod, counted.pod));
    EndpointSlice other = slice("other-service-1", Map.of(unlabelled.pod, unlabelled.uid));
    other.getMetadata().setLabels(Map.of("kubernetes.io/service-name", "other-service"));
    client.discovery().v1().endpointSlices().inNamespace(NS).resource(other).create();

    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view()).isEqualTo(counted.records());
  }

  @Test
  void aResourceWhoseDataTurnsNull_keepsItsLastRecords_whileItIsTheSamePodsResource() {
    Worker a = Worker.current("worker-a", 31, 7031);
    Worker b = Worker.current("worker-b", 32, 7032);
    create(a.resource());
    createSlice("workers-1", Map.of(a.pod, a.uid, b.pod, b.uid), Set.of(a.pod, b.pod));
    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.view().equals(a.records()));

    // what server-side apply may briefly leave behind; Dynamo keeps the last readable records
    client
        .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
        .inNamespace(NS)
        .withName(a.pod)
        .edit(
            resource -> {
              Map<String, Object> spec = new HashMap<>();
              spec.put("data", null);
              resource.setAdditionalProperty("spec", spec);
              return resource;
            });
    create(b.resource()); // after the edit on the same watch: once b is up, the edit was applied
    Map<String, DiscoveryRecord> both = new HashMap<>(a.records());
    both.putAll(b.records());
    await()
        .atMost(PATIENCE)
        .until(() -> listener.view().keySet().containsAll(b.records().keySet()));
    assertThat(listener.view()).isEqualTo(both);

    // the pod restarted: its new incarnation does not own the unreadable resource
    editSlice("workers-1", Map.of(a.pod, "uid-of-the-new-pod", b.pod, b.uid), Set.of(a.pod, b.pod));
    await().atMost(PATIENCE).until(() -> listener.view().equals(b.records()));
  }

  @Test
  void readsTheDynamoV1_2Layout() {
    // v1.2's DiscoveryMetadata (Dynamo's fixture v1_2_dwm.json @a5a710aa): the NATS request plane,
    // "model_suffix": null, event channels keyed {ns}/{component}/{topic}/{id:x} with a namespace
    // and component instead of a scope, the namespace-wide one with component "".
    InstanceRecord endpoint =
        new InstanceRecord(
            "dynamo",
            "backend",
            "generate",
            42,
            new Transport(Transport.Kind.NATS, "dynamo.backend.generate"),
            Optional.empty());
    ModelCardRecord model = card(42, "Qwen/Qwen3-0.6B");
    EventChannelRecord kvEvents =
        new EventChannelRecord(
            EventChannelRecord.Layout.COMPONENT,
            EventScope.component("dynamo", "backend"),
            "kv-events",
            42,
            new EventTransport.Nats("namespace.dynamo.component.backend"));
    EventChannelRecord metrics =
        new EventChannelRecord(
            EventChannelRecord.Layout.COMPONENT,
            EventScope.namespace("dynamo"),
            "kv_metrics",
            42,
            new EventTransport.Nats("namespace.dynamo"));
    ObjectNode data = JSON.createObjectNode();
    data.putObject("endpoints").set("dynamo/backend/generate/2a", value(endpoint));
    ObjectNode cardValue = value(model);
    cardValue.putNull("model_suffix");
    data.putObject("model_cards").set("dynamo/backend/generate/2a", cardValue);
    ObjectNode channels = data.putObject("event_channels");
    channels.set("dynamo/backend/kv-events/2a", value(kvEvents));
    channels.set("dynamo//kv_metrics/2a", value(metrics));
    assertThat(kvEvents.key()).isEqualTo("v1/event_channels/dynamo/backend/kv-events/2a");
    assertThat(metrics.key()).isEqualTo("v1/event_channels/dynamo//kv_metrics/2a");

    Worker legacy = new Worker("legacy-worker", endpoint, model, kvEvents);
    create(legacy.resourceWith(data));
    createSlice("legacy-1", Map.of(legacy.pod, legacy.uid), Set.of(legacy.pod));
    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view())
        .isEqualTo(
            Map.of(
                endpoint.key(), endpoint,
                model.key(), model,
                kvEvents.key(), kvEvents,
                metrics.key(), metrics));
  }

  @Test
  void afterTheApiServerWasAway_listsAgainAndReportsTheDifference() {
    Worker a = Worker.current("worker-a", 21, 7021);
    Worker b = Worker.current("worker-b", 22, 7022);
    Worker c = Worker.current("worker-c", 23, 7023);
    KubernetesMockServer other = serve(0); // the same store, for changes while the first is away
    KubernetesClient changes = other.createClient();
    create(a.resource());
    create(b.resource());
    createSlice("workers-1", Map.of(a.pod, a.uid, b.pod, b.uid), Set.of(a.pod, b.pod));
    startWatcher(server);
    await().atMost(PATIENCE).until(() -> listener.view().size() == 6);

    int port = server.getPort();
    server.destroy(); // the watches end
    client = changes;
    client
        .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
        .inNamespace(NS)
        .withName(a.pod)
        .delete();
    create(c.resource());
    editSlice("workers-1", Map.of(b.pod, b.uid, c.pod, c.uid), Set.of(b.pod, c.pod));
    serve(port); // back, with what changed meanwhile

    Map<String, DiscoveryRecord> expected = new HashMap<>(b.records());
    expected.putAll(c.records());
    await().atMost(PATIENCE).until(() -> listener.view().equals(expected));
    assertThat(listener.syncs()).isGreaterThanOrEqualTo(2);
    assertThat(listener.events())
        .contains(
            "instance down " + a.instance.key(),
            "card down " + a.card.key(),
            "channel down " + a.channel.key(),
            "instance up " + c.instance.key());
  }

  @Test
  void withTheUsualClientConfiguration_watchesTheNamespaceOfTheKubeconfigsContext(@TempDir Path dir)
      throws Exception {
    Worker a = Worker.current("worker-a", 41, 7041);
    create(a.resource());
    createSlice("workers-1", Map.of(a.pod, a.uid), Set.of(a.pod));
    Path kubeconfig = dir.resolve("config");
    Files.writeString(
        kubeconfig,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: mock",
            "  cluster:",
            "    server: http://" + server.getHostName() + ":" + server.getPort(),
            "contexts:",
            "- name: mock",
            "  context:",
            "    cluster: mock",
            "    namespace: " + NS,
            "    user: router",
            "current-context: mock",
            "users:",
            "- name: router",
            "  user:",
            "    token: not-checked-by-the-mock",
            ""));
    String before = System.getProperty("kubeconfig");
    System.setProperty("kubeconfig", kubeconfig.toString()); // fabric8 reads it before KUBECONFIG
    try {
      watcher = KubeDiscoveryWatcher.start(KubeDiscoveryConfig.inOwnNamespace(), listener);
    } finally {
      if (before == null) {
        System.clearProperty("kubeconfig");
      } else {
        System.setProperty("kubeconfig", before);
      }
    }
    assertThat(watcher.namespace()).isEqualTo(NS);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view()).isEqualTo(a.records());
  }

  @Test
  void aNamespaceMustBeAKubernetesName() {
    assertThatThrownBy(() -> KubeDiscoveryConfig.inNamespace("Dynamo_NS"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Dynamo_NS' is not a Kubernetes namespace name");
  }

  private static ObjectNode value(DiscoveryRecord record) {
    try {
      return (ObjectNode) JSON.readTree(DiscoveryCodec.encode(record));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private void create(GenericKubernetesResource resource) {
    client
        .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
        .inNamespace(NS)
        .resource(resource)
        .create();
  }

  private void createSlice(String name, Map<String, String> pods, Set<String> ready) {
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(NS)
        .resource(slice(name, pods, ready))
        .create();
  }

  private void editSlice(String name, Map<String, String> pods, Set<String> ready) {
    EndpointSlice next = slice(name, pods, ready);
    client
        .discovery()
        .v1()
        .endpointSlices()
        .inNamespace(NS)
        .withName(name)
        .edit(
            current -> {
              current.setEndpoints(next.getEndpoints());
              return current;
            });
  }

  private static EndpointSlice slice(String name, Map<String, String> pods) {
    return slice(name, pods, pods.keySet());
  }

  /**
   * A slice as Kubernetes' EndpointSlice controller makes it from the operator's Service: one
   * endpoint per pod ({@code pods}: name to uid), ready when in {@code ready}.
   */
  private static EndpointSlice slice(String name, Map<String, String> pods, Set<String> ready) {
    Map<String, String> labels = new LinkedHashMap<>(KubeDiscoveryWatcher.SLICE_LABELS);
    labels.put("kubernetes.io/service-name", "vllm-agg-0-worker");
    int[] ip = {10};
    List<Endpoint> endpoints =
        pods.entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(
                pod ->
                    new EndpointBuilder()
                        .withAddresses("10.244.1." + ip[0]++)
                        .withNewConditions()
                        .withReady(ready.contains(pod.getKey()))
                        .withServing(ready.contains(pod.getKey()))
                        .withTerminating(false)
                        .endConditions()
                        .withTargetRef(
                            new ObjectReferenceBuilder()
                                .withKind("Pod")
                                .withNamespace(NS)
                                .withName(pod.getKey())
                                .withUid(pod.getValue())
                                .build())
                        .build())
            .collect(Collectors.toList());
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(NS)
        .withLabels(labels)
        .endMetadata()
        .withAddressType("IPv4")
        .addNewPort()
        .withName("system")
        .withPort(9090)
        .withProtocol("TCP")
        .endPort()
        .withEndpoints(endpoints)
        .build();
  }

  /** A worker pod and the records its {@code DynamoWorkerMetadata} holds. */
  private record Worker(
      String pod,
      String uid,
      InstanceRecord instance,
      ModelCardRecord card,
      EventChannelRecord channel) {

    Worker(String pod, InstanceRecord instance, ModelCardRecord card, EventChannelRecord channel) {
      this(pod, "uid-" + pod, instance, card, channel);
    }

    /** The newest layout: TCP request plane, a scoped ZMQ event channel. */
    static Worker current(String pod, long id, int port) {
      return new Worker(
          pod,
          DiscoveryRecords.instance(id, port),
          DiscoveryRecords.card(id, "model-" + pod),
          DiscoveryRecords.channel(id + 1, port + 1));
    }

    Map<String, DiscoveryRecord> records() {
      return Map.of(instance.key(), instance, card.key(), card, channel.key(), channel);
    }

    /** The resource as the worker applies it: {@code spec.data} keyed like Dynamo's maps. */
    GenericKubernetesResource resource() {
      ObjectNode data = JSON.createObjectNode();
      data.putObject("endpoints").set(mapKey(instance), value(instance));
      data.putObject("model_cards").set(mapKey(card), value(card));
      data.putObject("event_channels").set(mapKey(channel), value(channel));
      return resourceWith(data);
    }

    GenericKubernetesResource resourceWith(ObjectNode data) {
      return new GenericKubernetesResourceBuilder()
          .withApiVersion("nvidia.com/v1alpha1")
          .withKind("DynamoWorkerMetadata")
          .withNewMetadata()
          .withName(pod)
          .withNamespace(NS)
          .withOwnerReferences(
              new OwnerReferenceBuilder()
                  .withApiVersion("v1")
                  .withKind("Pod")
                  .withName(pod)
                  .withUid(uid)
                  .withController(false)
                  .withBlockOwnerDeletion(false)
                  .build())
          .endMetadata()
          .withAdditionalProperties(
              Map.of("spec", Map.of("data", JSON.convertValue(data, Map.class))))
          .build();
    }

    private static String mapKey(DiscoveryRecord record) {
      return record.key().substring(record.key().indexOf('/', 3) + 1);
    }
  }
}
