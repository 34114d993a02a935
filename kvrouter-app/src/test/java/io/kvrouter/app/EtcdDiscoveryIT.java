package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.LeaseOption;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DynamoIds;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.discovery.EventScope;
import io.kvrouter.discovery.EventTransport;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.discovery.Transport;
import io.kvrouter.discovery.etcd.EtcdClients;
import io.kvrouter.discovery.etcd.EtcdDiscoveryWatcher;
import io.kvrouter.testing.EtcdProcess;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.WorkerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code router.jar worker --discovery-backend etcd} processes against a real etcd, seen through an
 * {@link EtcdDiscoveryWatcher}: the keys a Dynamo worker writes, gone when the worker is killed
 * (its lease expires) or stops (it revokes the lease).
 */
class EtcdDiscoveryIT {
  private static final Duration PATIENCE = Duration.ofSeconds(90);
  private static final Pattern REGISTERED =
      Pattern.compile("registered in etcd as instance ([0-9a-f]+):");

  private EtcdProcess etcd;
  private RecordingListener listener;
  private EtcdDiscoveryWatcher watcher;
  private final List<AutoCloseable> closers = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    etcd = EtcdProcess.start();
    listener = new RecordingListener();
    watcher = EtcdDiscoveryWatcher.start(EtcdConfig.of(List.of(etcd.uri())), listener);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closer : closers) {
      closer.close();
    }
    watcher.close();
    etcd.close();
  }

  private WorkerProcess worker(String model, List<String> options) throws Exception {
    List<String> all = new ArrayList<>(List.of("--port", "0", "--discovery-backend", "etcd"));
    all.addAll(options);
    WorkerProcess worker = WorkerProcess.start(model, 5, 1, all);
    closers.add(0, worker);
    return worker;
  }

  private static long instanceId(WorkerProcess worker) {
    await().atMost(PATIENCE).until(() -> REGISTERED.matcher(worker.recentOutput(200)).find());
    Matcher m = REGISTERED.matcher(worker.recentOutput(200));
    assertThat(m.find()).isTrue();
    return Long.parseUnsignedLong(m.group(1), 16);
  }

  @Test
  void aZmqWorker_registersItsEndpointsCardAndEventChannel_andAKillLetsTheLeaseExpire()
      throws Exception {
    WorkerProcess worker =
        worker(
            "model-a",
            List.of(
                "--etcd-endpoints",
                etcd.url(),
                "--kv-events-format",
                "dynamo",
                "--kv-events-port",
                "0",
                "--data-parallel-size",
                "2",
                "--num-gpu-blocks",
                "512",
                "--kv-cache-block-size",
                "32"));
    long id = instanceId(worker);
    String hex = DynamoIds.hex(id);
    assertThat(worker.recentOutput(200)).contains("as worker " + Long.toUnsignedString(id));

    String instanceKey = "v1/instances/dynamo/backend/generate/" + hex;
    String cardKey = "v1/mdc/dynamo/backend/generate/" + hex;
    await()
        .atMost(PATIENCE)
        .until(
            () ->
                listener.view().containsKey(instanceKey)
                    && listener.view().containsKey(cardKey)
                    && listener.view().values().stream()
                        .anyMatch(r -> r instanceof EventChannelRecord));

    InstanceRecord instance = (InstanceRecord) listener.view().get(instanceKey);
    assertThat(instance.transport())
        .isEqualTo(Transport.tcp("127.0.0.1", worker.port(), id, "generate"));
    assertThat(listener.view())
        .as("the recovery-query endpoint of its event publisher is registered too")
        .hasKeySatisfying(
            new org.assertj.core.api.Condition<>(
                k ->
                    k.startsWith("v1/instances/dynamo/backend/worker_kv_query_source_")
                        && k.endsWith("/" + hex),
                "a query endpoint key"));

    ModelCard card = ((ModelCardRecord) listener.view().get(cardKey)).card();
    assertThat(card.displayName()).isEqualTo("model-a");
    assertThat(card.kvCacheBlockSize()).isEqualTo(32);
    assertThat(card.runtimeConfig().totalKvBlocks()).hasValue(512);
    assertThat(card.runtimeConfig().dataParallelSize()).isEqualTo(2);
    assertThat(card.runtimeConfig().enableLocalIndexer()).isTrue();
    assertThat(card.contextLength()).hasValue(512 * 32);

    List<EventChannelRecord> channels =
        listener.view().values().stream()
            .filter(r -> r instanceof EventChannelRecord)
            .map(r -> (EventChannelRecord) r)
            .filter(r -> r.topic().equals("kv-events"))
            .toList();
    assertThat(channels).hasSize(1); // one ZMQ publisher carries both ranks
    EventChannelRecord channel = channels.get(0);
    List<EventChannelRecord> loads =
        listener.view().values().stream()
            .filter(r -> r instanceof EventChannelRecord)
            .map(r -> (EventChannelRecord) r)
            .filter(r -> r.topic().equals("kv_metrics"))
            .toList();
    assertThat(loads).as("the load publisher's channel").hasSize(1);
    assertThat(loads.get(0).transport())
        .isEqualTo(new EventTransport.Zmq("tcp://127.0.0.1:" + worker.kvMetricsPort()));
    assertThat(loads.get(0).publisherId()).isNotEqualTo(channel.publisherId());
    assertThat(channel.scope()).isEqualTo(EventScope.endpoint("dynamo", "backend", "generate"));
    assertThat(channel.topic()).isEqualTo("kv-events");
    assertThat(channel.transport())
        .isEqualTo(new EventTransport.Zmq("tcp://127.0.0.1:" + worker.kvEventsPort()));
    assertThat(channel.key())
        .isEqualTo(
            "v1/event_channels/namespace/dynamo/component/backend/endpoint/generate/topic/kv-events/"
                + DynamoIds.hex(channel.publisherId()));

    // a frontend that reaches the worker at the address it advertises is served
    String address = instance.transport().address();
    Map<String, List<String>> flags =
        RouterFixture.workers("id=" + Long.toUnsignedString(id) + ",address=" + address);
    flags.put("served-model-name", List.of("model-a"));
    try (RouterFixture router = RouterFixture.start(flags)) {
      Http.Response chat =
          Http.post(
              router.baseUrl + "/v1/chat/completions",
              "{\"model\":\"model-a\",\"max_tokens\":2,"
                  + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
      assertThat(chat.status()).as(address).isEqualTo(200);
    }

    worker.kill(); // SIGKILL: no revoke, the lease runs out
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
    assertThat(listener.events()).contains("instance down " + instanceKey, "card down " + cardKey);
  }

  @Test
  void aCleanStop_revokesTheLease_soEveryKeyGoesAtOnce() throws Exception {
    WorkerProcess worker = worker("model-b", List.of("--etcd-endpoints", etcd.url()));
    long id = instanceId(worker);
    await().atMost(PATIENCE).until(() -> listener.view().size() == 2); // generate + card
    assertThat(listener.view().values()).allMatch(r -> r.instanceId() == id);

    assertThat(worker.terminate()).isZero();
    try (Client client = EtcdClients.connect(EtcdConfig.of(List.of(etcd.uri())))) {
      // the lease is gone the moment the process has exited: revoked, not left to expire
      assertThat(
              client
                  .getLeaseClient()
                  .timeToLive(id, LeaseOption.DEFAULT)
                  .get(10, TimeUnit.SECONDS)
                  .getTTL())
          .isEqualTo(-1);
    }
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
  }

  @Test
  void aNatsWorker_registersItsNatsSubjects_andOneChannelPerRankPublisher() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.start()) {
      WorkerProcess worker =
          worker(
              "model-c",
              List.of(
                  "--etcd-endpoints",
                  etcd.url(),
                  "--nats-server",
                  nats.url(),
                  "--request-plane",
                  "nats",
                  "--event-plane",
                  "nats",
                  "--data-parallel-size",
                  "2"));
      long id = instanceId(worker);
      String hex = DynamoIds.hex(id);
      String instanceKey = "v1/instances/dynamo/backend/generate/" + hex;
      await()
          .atMost(PATIENCE)
          .until(
              () ->
                  listener.view().containsKey(instanceKey)
                      && listener.view().values().stream()
                              .filter(r -> r instanceof EventChannelRecord)
                              .count()
                          == 3);
      assertThat(
              listener.view().values().stream()
                  .filter(r -> r instanceof EventChannelRecord)
                  .map(r -> ((EventChannelRecord) r).topic())
                  .sorted()
                  .toList())
          .as("one kv-events channel per rank's publisher, one kv_metrics channel")
          .containsExactly("kv-events", "kv-events", "kv_metrics");
      assertThat(((InstanceRecord) listener.view().get(instanceKey)).transport())
          .isEqualTo(new Transport(Transport.Kind.NATS, "dynamo_backend.generate-" + hex));
      assertThat(
              listener.view().values().stream()
                  .filter(r -> r instanceof EventChannelRecord)
                  .map(r -> ((EventChannelRecord) r).transport())
                  .distinct()
                  .toList())
          .containsExactly(
              new EventTransport.Nats("namespace.dynamo.component.backend.endpoint.generate"));
      worker.terminate();
      await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
    }
  }

  @Test
  void withoutEtcd_theWorkerSaysSoAndExits() throws Exception {
    etcd.stop();
    Process process =
        new ProcessBuilder(
                WorkerProcess.javaBinary(),
                "-Xmx256m",
                "-jar",
                WorkerProcess.routerJar().toString(),
                "worker",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--model-name",
                "m",
                "--discovery-backend",
                "etcd",
                "--etcd-endpoints",
                etcd.url())
            .redirectErrorStream(true)
            .start();
    String said = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(1);
    assertThat(said).contains("error: cannot register in etcd: granting a lease");
  }
}
