package io.kvrouter.events.nats;

import io.kvrouter.config.NatsServer;
import io.kvrouter.events.IndexSnapshotStore;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.protocol.snapshot.IndexSnapshotCodec;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.ObjectStore;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.ObjectInfo;
import io.nats.client.api.ObjectStoreConfiguration;
import io.nats.client.api.StorageType;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Index snapshots kept in NATS JetStream, for routers of a fleet to start from: each snapshot is an
 * object of the object store bucket {@value #BUCKET} (chunked by NATS, so tens of MiB are fine),
 * named after what it covers (an endpoint); a key of the key-value bucket {@value #LOCKS} of the
 * same name says which router writes it. The key expires {@code lockTtl} after its last refresh, so
 * the fleet gets a new writer when the old one dies.
 *
 * <p>Every call blocks on the network: not for an event loop.
 */
public final class NatsSnapshotStore implements IndexSnapshotStore {
  /** The object store bucket of the snapshots. */
  public static final String BUCKET = "kvrouter-index-snapshots";

  /** The key-value bucket of the writers' locks. */
  public static final String LOCKS = "kvrouter-index-snapshot-writers";

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final Connection connection;
  private final ObjectStore objects;
  private final KeyValue locks;

  private NatsSnapshotStore(Connection connection, ObjectStore objects, KeyValue locks) {
    this.connection = connection;
    this.objects = objects;
    this.locks = locks;
  }

  /**
   * Connects to {@code server} and makes sure both buckets exist.
   *
   * @param lockTtl how long a writer's lock lasts without a refresh
   * @throws IOException when NATS cannot be reached or has no JetStream
   */
  public static NatsSnapshotStore connect(NatsServer server, Duration lockTtl)
      throws IOException, InterruptedException {
    Connection connection =
        Nats.connect(
            NatsOptions.builder(server)
                .connectionName("kvrouter-index-snapshots")
                .connectionTimeout(CONNECT_TIMEOUT)
                .maxReconnects(-1)
                .build());
    try {
      try {
        connection
            .objectStoreManagement()
            .create(
                ObjectStoreConfiguration.builder()
                    .name(BUCKET)
                    .storageType(StorageType.File)
                    .build());
        connection
            .keyValueManagement()
            .create(
                KeyValueConfiguration.builder()
                    .name(LOCKS)
                    .ttl(lockTtl)
                    .storageType(StorageType.File)
                    .build());
      } catch (JetStreamApiException e) {
        throw new IOException("NATS JetStream refused the snapshot buckets: " + e.getMessage(), e);
      }
      return new NatsSnapshotStore(
          connection, connection.objectStore(BUCKET), connection.keyValue(LOCKS));
    } catch (IOException | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  @Override
  public Optional<IndexSnapshot> load(String name) throws IOException, InterruptedException {
    try {
      ObjectInfo info = objects.getInfo(name);
      if (info == null || info.isDeleted()) {
        return Optional.empty();
      }
      ByteArrayOutputStream bytes =
          new ByteArrayOutputStream((int) Math.min(info.getSize(), 1 << 30));
      objects.get(name, bytes);
      return Optional.of(IndexSnapshotCodec.read(new ByteArrayInputStream(bytes.toByteArray())));
    } catch (JetStreamApiException | NoSuchAlgorithmException e) {
      throw new IOException("cannot read snapshot " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public long save(String name, IndexSnapshot snapshot) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IndexSnapshotCodec.write(snapshot, bytes);
    try {
      return objects.put(name, new ByteArrayInputStream(bytes.toByteArray())).getSize();
    } catch (JetStreamApiException | NoSuchAlgorithmException e) {
      throw new IOException("cannot write snapshot " + name + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void delete(String name) throws IOException {
    try {
      ObjectInfo info = objects.getInfo(name);
      if (info != null && !info.isDeleted()) {
        objects.delete(name);
      }
    } catch (JetStreamApiException e) {
      throw new IOException("cannot delete snapshot " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Takes or refreshes the lock on writing {@code name} for {@code owner}: true when {@code owner}
   * holds it now (it was free, expired, or already {@code owner}'s), false when another holds it.
   */
  @Override
  public boolean lock(String name, String owner) throws IOException {
    byte[] me = Objects.requireNonNull(owner, "owner").getBytes(StandardCharsets.UTF_8);
    try {
      KeyValueEntry held = locks.get(name);
      if (held == null || held.getValue() == null) {
        locks.create(name, me);
        return true;
      }
      if (!Arrays.equals(held.getValue(), me)) {
        return false;
      }
      locks.update(name, me, held.getRevision());
      return true;
    } catch (JetStreamApiException e) {
      return false; // another writer took it between the read and the write
    }
  }

  @Override
  public void close() {
    try {
      connection.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
