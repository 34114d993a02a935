package io.kvrouter.discovery.etcd;

import static io.kvrouter.discovery.DiscoveryRecords.card;
import static io.kvrouter.discovery.DiscoveryRecords.channel;
import static io.kvrouter.discovery.DiscoveryRecords.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.testing.EtcdProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link EtcdDiscoveryWatcher} against a real etcd. */
class EtcdDiscoveryWatcherTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private EtcdProcess etcd;
  private Client client;
  private RecordingListener listener;
  private EtcdDiscoveryWatcher watcher;

  @BeforeEach
  void startEtcd() throws Exception {
    etcd = EtcdProcess.start();
    client = EtcdClients.connect(EtcdConfig.of(List.of(etcd.uri())));
    listener = new RecordingListener();
  }

  @AfterEach
  void stop() {
    if (watcher != null) {
      watcher.close();
    }
    client.close();
    etcd.close();
  }

  private void startWatcher() {
    watcher = EtcdDiscoveryWatcher.start(EtcdConfig.of(List.of(etcd.uri())), listener);
  }

  @Test
  void listsWhatIsThere_thenReportsPutsUpdatesAndDeletes_inOrder_onOneThread() throws Exception {
    put(instance(1, 1001));
    put(card(1, "model-a"));
    client.getKVClient().put(bytes("v1/claims/x"), bytes("not ours")).get(10, TimeUnit.SECONDS);
    startWatcher();
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    assertThat(listener.view()).containsOnlyKeys(instance(1, 1001).key(), card(1, "model-a").key());

    put(channel(77, 5555));
    put(instance(1, 1002)); // the same key, a new address
    put(instance(2, 2001));
    delete(card(1, "model-a"));
    await().atMost(PATIENCE).until(() -> listener.view().equals(etcdView()));
    assertThat(listener.events())
        .containsExactly(
            "instance up " + instance(1, 1001).key(),
            "card up " + card(1, "model-a").key(),
            "synced",
            "channel up " + channel(77, 5555).key(),
            "instance updated " + instance(1, 1002).key(),
            "instance up " + instance(2, 2001).key(),
            "card down " + card(1, "model-a").key());
    assertThat(listener.threads()).containsOnly("etcd-discovery-watcher");
    assertThat(listener.view().get(instance(1, 1002).key())).isEqualTo(instance(1, 1002));
  }

  @Test
  void anUnreadableValue_isSkipped_andAKnownKeyKeepsItsLastRecord() throws Exception {
    startWatcher();
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    put(instance(3, 3001));
    client
        .getKVClient()
        .put(bytes("v1/instances/dynamo/backend/generate/4"), bytes("{\"type\":\"Endpoint\"}"))
        .get(10, TimeUnit.SECONDS);
    client
        .getKVClient()
        .put(bytes(instance(3, 3001).key()), bytes("not json"))
        .get(10, TimeUnit.SECONDS);
    put(instance(5, 5001));
    await().atMost(PATIENCE).until(() -> listener.view().containsKey(instance(5, 5001).key()));
    assertThat(listener.view()).containsOnlyKeys(instance(3, 3001).key(), instance(5, 5001).key());
    assertThat(listener.view().get(instance(3, 3001).key())).isEqualTo(instance(3, 3001));
  }

  @Test
  void afterEtcdLostItsData_relistsAndReportsTheDifference() throws Exception {
    put(instance(1, 1001));
    put(card(1, "model-a"));
    startWatcher();
    await().atMost(PATIENCE).until(() -> listener.view().size() == 2);

    etcd.restartEmpty(); // instance 1 and its card are gone; the new etcd's revisions start over
    put(instance(2, 2001));
    put(channel(9, 9009));

    await()
        .atMost(PATIENCE)
        .until(
            () ->
                listener
                    .view()
                    .keySet()
                    .equals(java.util.Set.of(instance(2, 2001).key(), channel(9, 9009).key())));
    assertThat(listener.view()).isEqualTo(etcdView());
    assertThat(listener.events())
        .contains(
            "instance down " + instance(1, 1001).key(),
            "card down " + card(1, "model-a").key(),
            "instance up " + instance(2, 2001).key(),
            "channel up " + channel(9, 9009).key());
    assertThat(listener.syncs()).isGreaterThanOrEqualTo(2);
  }

  @Test
  void afterAnEtcdRestart_withChangesCompactedAway_relistsAndReportsTheDifference()
      throws Exception {
    put(instance(1, 1001));
    put(instance(2, 2001));
    startWatcher();
    await().atMost(PATIENCE).until(() -> listener.view().size() == 2);

    etcd.restart(); // same data: keys, revisions and leases survive
    delete(instance(1, 1001));
    put(card(2, "model-b"));
    long revision =
        client.getKVClient().get(bytes("v1/")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
    client.getKVClient().compact(revision).get(10, TimeUnit.SECONDS);

    await()
        .atMost(PATIENCE)
        .until(
            () ->
                listener
                    .view()
                    .keySet()
                    .equals(java.util.Set.of(instance(2, 2001).key(), card(2, "model-b").key())));
    assertThat(listener.view()).isEqualTo(etcdView());
    put(instance(3, 3001)); // and it watches again afterwards
    await().atMost(PATIENCE).until(() -> listener.view().equals(etcdView()));
    assertThat(listener.view()).containsKey(instance(3, 3001).key());
  }

  @Test
  void closing_stopsTheReports() throws Exception {
    startWatcher();
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
    watcher.close();
    watcher = null;
    put(instance(1, 1001));
    // a second watcher started after the put sees it; the closed one was told nothing
    RecordingListener second = new RecordingListener();
    try (EtcdDiscoveryWatcher other = EtcdDiscoveryWatcher.start(client, second)) {
      await().atMost(PATIENCE).until(() -> second.view().size() == 1);
      put(instance(2, 2001));
      await().atMost(PATIENCE).until(() -> second.view().size() == 2);
    }
    assertThat(listener.view()).isEmpty();
    assertThat(listener.events()).containsExactly("synced");
  }

  private Map<String, DiscoveryRecord> etcdView() throws Exception {
    Map<String, DiscoveryRecord> view = new HashMap<>();
    for (var kv :
        client
            .getKVClient()
            .get(bytes("v1/"), GetOption.builder().isPrefix(true).build())
            .get(10, TimeUnit.SECONDS)
            .getKvs()) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (!key.startsWith("v1/claims/")) {
        view.put(key, DiscoveryCodec.decode(key, kv.getValue().getBytes()));
      }
    }
    return view;
  }

  private void put(DiscoveryRecord record) throws Exception {
    client
        .getKVClient()
        .put(bytes(record.key()), ByteSequence.from(DiscoveryCodec.encode(record)))
        .get(30, TimeUnit.SECONDS);
  }

  private void delete(DiscoveryRecord record) throws Exception {
    client.getKVClient().delete(bytes(record.key())).get(30, TimeUnit.SECONDS);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
