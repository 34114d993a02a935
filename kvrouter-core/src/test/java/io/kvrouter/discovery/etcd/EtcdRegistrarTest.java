package io.kvrouter.discovery.etcd;

import static io.kvrouter.discovery.DiscoveryRecords.card;
import static io.kvrouter.discovery.DiscoveryRecords.channel;
import static io.kvrouter.discovery.DiscoveryRecords.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.testing.EtcdProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link EtcdRegistrar} against a real etcd, seen through an {@link EtcdDiscoveryWatcher}. */
class EtcdRegistrarTest {
  private static final Duration PATIENCE = Duration.ofSeconds(60);

  private EtcdProcess etcd;
  private Client client;
  private RecordingListener listener;
  private EtcdDiscoveryWatcher watcher;

  @BeforeEach
  void start() throws Exception {
    etcd = EtcdProcess.start();
    client = EtcdClients.connect(EtcdConfig.of(List.of(etcd.uri())));
    listener = new RecordingListener();
    watcher = EtcdDiscoveryWatcher.start(client, listener);
    await().atMost(PATIENCE).until(() -> listener.syncs() == 1);
  }

  @AfterEach
  void stop() {
    watcher.close();
    client.close();
    etcd.close();
  }

  @Test
  void registersUnderOneLease_whoseIdIsTheInstanceId_andRevokesItOnClose() throws Exception {
    EtcdRegistrar registrar = EtcdRegistrar.start(EtcdConfig.of(List.of(etcd.uri())));
    long id = registrar.instanceId();
    List<DiscoveryRecord> records = List.of(instance(id, 1001), card(id, "m"), channel(99, 5555));
    records.forEach(registrar::register);

    await().atMost(PATIENCE).until(() -> listener.view().size() == 3);
    assertThat(listener.view().values()).containsExactlyInAnyOrderElementsOf(records);
    assertThat(registrar.leaseId()).isEqualTo(id);
    for (DiscoveryRecord record : records) {
      assertThat(stored(record).getLease()).as(record.key()).isEqualTo(id);
    }
    long ttl =
        client
            .getLeaseClient()
            .timeToLive(id, io.etcd.jetcd.options.LeaseOption.DEFAULT)
            .get(10, TimeUnit.SECONDS)
            .getGrantedTTL();
    assertThat(ttl).isEqualTo(EtcdRegistrar.LEASE_TTL_SECONDS);

    registrar.close();
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
    assertThat(listener.events())
        .contains(
            "instance down " + records.get(0).key(),
            "card down " + records.get(1).key(),
            "channel down " + records.get(2).key());
  }

  @Test
  void keepsTheLeaseAlive_pastItsTtl() throws Exception {
    try (EtcdRegistrar registrar = EtcdRegistrar.start(client)) {
      registrar.register(instance(registrar.instanceId(), 1001));
      await().atMost(PATIENCE).until(() -> listener.view().size() == 1);
      // etcd's own count-down of the lease goes back up at each renewal: four renewals (every
      // TTL/3) span more than a TTL, which the lease would not have survived without them
      long id = registrar.instanceId();
      long[] last = {renewedTtl(id)};
      int[] renewals = {0};
      await()
          .atMost(PATIENCE)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                long ttl = renewedTtl(id);
                assertThat(ttl).as("the lease's remaining TTL").isPositive();
                if (ttl > last[0]) {
                  renewals[0]++;
                }
                last[0] = ttl;
                return renewals[0] >= 4;
              });
      assertThat(listener.view()).hasSize(1);
      assertThat(registrar.leasesGranted()).isEqualTo(1);
    }
  }

  private long renewedTtl(long lease) throws Exception {
    return client
        .getLeaseClient()
        .timeToLive(lease, io.etcd.jetcd.options.LeaseOption.DEFAULT)
        .get(10, TimeUnit.SECONDS)
        .getTTL();
  }

  @Test
  void aLostLease_isReplaced_andEveryRecordPutAgainUnderTheSameInstanceId() throws Exception {
    try (EtcdRegistrar registrar = EtcdRegistrar.start(client)) {
      long id = registrar.instanceId();
      List<DiscoveryRecord> records = List.of(instance(id, 1001), card(id, "m"));
      records.forEach(registrar::register);
      await().atMost(PATIENCE).until(() -> listener.view().size() == 2);

      client.getLeaseClient().revoke(id).get(10, TimeUnit.SECONDS); // as an expiry would

      await().atMost(PATIENCE).until(() -> registrar.leasesGranted() == 2);
      await().atMost(PATIENCE).until(() -> listener.view().size() == 2);
      assertThat(listener.view().values()).containsExactlyInAnyOrderElementsOf(records);
      assertThat(listener.events())
          .containsSubsequence(
              "instance down " + records.get(0).key(), "instance up " + records.get(0).key());
      long fresh = registrar.leaseId();
      assertThat(fresh).isNotEqualTo(id);
      for (DiscoveryRecord record : records) {
        assertThat(stored(record).getLease()).isEqualTo(fresh);
      }
    }
    await().atMost(PATIENCE).until(() -> listener.view().isEmpty());
  }

  @Test
  void aKeyThatExists_isNotOverwrittenByTheFirstRegistration_asDynamosCreate() throws Exception {
    try (EtcdRegistrar registrar = EtcdRegistrar.start(client)) {
      long id = registrar.instanceId();
      DiscoveryRecord earlier = instance(id, 1111);
      client
          .getKVClient()
          .put(bytes(earlier.key()), ByteSequence.from(DiscoveryCodec.encode(earlier)))
          .get(10, TimeUnit.SECONDS);
      registrar.register(instance(id, 2222));
      assertThat(DiscoveryCodec.decode(earlier.key(), stored(earlier).getValue().getBytes()))
          .isEqualTo(earlier);
      assertThat(stored(earlier).getLease()).isZero();
    }
  }

  private KeyValue stored(DiscoveryRecord record) throws Exception {
    List<KeyValue> kvs =
        client.getKVClient().get(bytes(record.key())).get(10, TimeUnit.SECONDS).getKvs();
    assertThat(kvs).as(record.key()).hasSize(1);
    return kvs.get(0);
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
