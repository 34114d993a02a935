package io.kvrouter.events.kafka;

import io.kvrouter.config.KafkaConfig;
import io.kvrouter.events.IndexSnapshotStore;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.protocol.snapshot.IndexSnapshotCodec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Index snapshots kept in Kafka, next to the event plane's topics: the compacted one-partition
 * topic {@link KafkaTopics#indexSnapshots} holds each snapshot as records keyed by its name. A
 * snapshot is tens of MiB and a record at most about 1 MiB, so it is cut into chunks:
 *
 * <pre>
 *   key {name}/chunk/{generation}/{i}   value: bytes i*CHUNK .. of the encoded snapshot
 *   key {name}/head                     value: generation (8 bytes, big-endian)
 *                                              chunks     (4 bytes)
 *                                              length     (8 bytes)
 *                                              SHA-256 of the encoded snapshot (32 bytes)
 * </pre>
 *
 * A writer sends a new generation's chunks, then the head that names them, then tombstones for the
 * older generations' chunks; a reader reads the topic from its beginning to its end, keeps the last
 * value of each of the name's keys, and takes the chunks the head names, checked against its length
 * and digest. So a writer that dies half-way leaves the previous snapshot whole, and compaction
 * keeps only the newest value of each key.
 *
 * <p>The writer's lock is Kafka's own group membership: every router asks to consume the snapshot
 * topic in the group {@code {prefix}.index-snapshot-writers.{name}}, and the one member that the
 * group gives its single partition holds the lock (nothing is read: the partition stays paused). A
 * router that stops polling leaves the group when its session ({@code lockTtl}) lapses, and the
 * partition, with the lock, goes to another.
 *
 * <p>Every call blocks on the network: not for an event loop. {@link #lock} must always be called
 * from the same thread.
 */
public final class KafkaSnapshotStore implements IndexSnapshotStore {
  /** The bytes of one chunk record: well under Kafka's 1 MiB default record limit. */
  static final int CHUNK = 512 * 1024;

  private static final int HEAD_BYTES = 8 + 4 + 8 + 32;
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** The longest a reading of the whole topic may take (it holds a snapshot or two). */
  private static final Duration READ_WAIT = Duration.ofMinutes(2);

  /** Segments of 64 MiB or 10 minutes, whichever comes first: compaction skips the open one. */
  private static final Map<String, String> TOPIC_CONFIG =
      Map.of(
          "cleanup.policy",
          "compact",
          "segment.bytes",
          String.valueOf(64 << 20),
          "segment.ms",
          String.valueOf(Duration.ofMinutes(10).toMillis()),
          "min.cleanable.dirty.ratio",
          "0.1");

  private static final Duration POLL = Duration.ofMillis(200);

  private final KafkaConfig kafka;
  private final String topic;
  private final Duration lockTtl;
  private final KafkaProducer<byte[], byte[]> producer;
  private final SecureRandom random = new SecureRandom();

  /** Tells this store's clients from another store's in the same process (Kafka's client ids). */
  private final String clientId;

  /** The lock's group member per snapshot name; used from the locking thread only. */
  private final Map<String, KafkaConsumer<byte[], byte[]>> lockMembers = new HashMap<>();

  private KafkaSnapshotStore(KafkaConfig kafka, Duration lockTtl) {
    this.kafka = kafka;
    this.topic = KafkaTopics.indexSnapshots(kafka);
    this.lockTtl = lockTtl;
    this.clientId = "kvrouter-index-snapshots-" + Long.toHexString(random.nextLong());
    Properties properties = KafkaClients.properties(kafka, clientId);
    properties.put("acks", "all");
    properties.put("enable.idempotence", "true");
    properties.put("max.request.size", String.valueOf(CHUNK + 64 * 1024));
    this.producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
  }

  /**
   * Connects to {@code kafka} and makes sure the snapshot topic exists (compacted, one partition).
   *
   * @param lockTtl how long a writer keeps the lock after it stops renewing it
   * @throws IOException when Kafka cannot be reached or refuses the topic
   */
  public static KafkaSnapshotStore connect(KafkaConfig kafka, Duration lockTtl)
      throws IOException, InterruptedException {
    String topic = KafkaTopics.indexSnapshots(kafka);
    try (Admin admin = Admin.create(KafkaClients.properties(kafka, "kvrouter-snapshot-admin"))) {
      try {
        admin
            .createTopics(
                List.of(
                    new NewTopic(topic, Optional.of(1), Optional.empty()).configs(TOPIC_CONFIG)))
            .all()
            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          // not allowed to create topics: one made beforehand will do
          try {
            admin
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
          } catch (ExecutionException missing) {
            throw new IOException(
                "Kafka refused to create the topic "
                    + topic
                    + " ("
                    + e.getCause()
                    + ") and has none",
                e);
          }
        }
      }
    } catch (TimeoutException | KafkaException e) {
      throw new IOException("Kafka at " + kafka.bootstrapServers() + " does not answer: " + e, e);
    }
    return new KafkaSnapshotStore(kafka, lockTtl);
  }

  @Override
  public Optional<IndexSnapshot> load(String name) throws IOException {
    Map<String, byte[]> records = read(name);
    byte[] head = records.get(name + "/head");
    if (head == null) {
      return Optional.empty();
    }
    if (head.length != HEAD_BYTES) {
      throw new IOException("snapshot " + name + " has a head of " + head.length + " bytes");
    }
    ByteBuffer fields = ByteBuffer.wrap(head);
    long generation = fields.getLong();
    int chunks = fields.getInt();
    long length = fields.getLong();
    byte[] digest = new byte[32];
    fields.get(digest);
    if (length > Integer.MAX_VALUE - 8) {
      throw new IOException("snapshot " + name + " is too large: " + length + " bytes");
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream((int) length);
    for (int i = 0; i < chunks; i++) {
      byte[] chunk = records.get(chunkKey(name, generation, i));
      if (chunk == null) {
        throw new IOException("snapshot " + name + " lacks chunk " + i + " of " + chunks);
      }
      bytes.writeBytes(chunk);
    }
    byte[] encoded = bytes.toByteArray();
    if (encoded.length != length || !Arrays.equals(sha256(encoded), digest)) {
      throw new IOException("snapshot " + name + " does not match its head's length and digest");
    }
    return Optional.of(IndexSnapshotCodec.read(new ByteArrayInputStream(encoded)));
  }

  @Override
  public long save(String name, IndexSnapshot snapshot) throws IOException, InterruptedException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    IndexSnapshotCodec.write(snapshot, out);
    byte[] encoded = out.toByteArray();
    Collection<String> older = read(name).keySet();
    long generation = random.nextLong() & Long.MAX_VALUE;
    int chunks = (encoded.length + CHUNK - 1) / CHUNK;
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (int i = 0; i < chunks; i++) {
      int from = i * CHUNK;
      sent.add(
          send(
              chunkKey(name, generation, i),
              Arrays.copyOfRange(encoded, from, Math.min(encoded.length, from + CHUNK))));
    }
    awaitAll(sent); // every chunk is there before the head names them
    ByteBuffer head = ByteBuffer.allocate(HEAD_BYTES);
    head.putLong(generation).putInt(chunks).putLong(encoded.length).put(sha256(encoded));
    awaitAll(List.of(send(name + "/head", head.array())));
    List<Future<RecordMetadata>> tombstones = new ArrayList<>();
    for (String key : older) {
      if (!key.equals(name + "/head")) {
        tombstones.add(send(key, null));
      }
    }
    awaitAll(tombstones);
    return encoded.length;
  }

  @Override
  public void delete(String name) throws IOException, InterruptedException {
    List<Future<RecordMetadata>> tombstones = new ArrayList<>();
    for (String key : read(name).keySet()) {
      tombstones.add(send(key, null));
    }
    awaitAll(tombstones);
  }

  @Override
  public boolean lock(String name, String owner) throws IOException {
    TopicPartition partition = new TopicPartition(topic, 0);
    try {
      KafkaConsumer<byte[], byte[]> member =
          lockMembers.computeIfAbsent(name, n -> joinLockGroup(n, owner));
      member.poll(POLL); // keeps the membership; the partition is paused, so nothing is read
      return member.assignment().contains(partition);
    } catch (KafkaException e) {
      KafkaConsumer<byte[], byte[]> broken = lockMembers.remove(name);
      if (broken != null) {
        broken.close(Duration.ZERO);
      }
      throw new IOException("the snapshot writers' group of " + name + " failed: " + e, e);
    }
  }

  private KafkaConsumer<byte[], byte[]> joinLockGroup(String name, String owner) {
    Properties properties = KafkaClients.properties(kafka, "kvrouter-snapshot-lock-" + owner);
    properties.put("group.id", kafka.topicPrefix() + ".index-snapshot-writers." + name);
    // the holder keeps the partition when another router joins
    properties.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
    properties.put("enable.auto.commit", "false");
    properties.put("session.timeout.ms", String.valueOf(lockTtl.toMillis()));
    properties.put(
        "heartbeat.interval.ms", String.valueOf(Math.max(1000, lockTtl.toMillis() / 10)));
    KafkaConsumer<byte[], byte[]> member =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    member.subscribe(
        List.of(topic),
        new ConsumerRebalanceListener() {
          @Override
          public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

          @Override
          public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            member.pause(partitions);
          }
        });
    return member;
  }

  /**
   * The last value of each of snapshot {@code name}'s keys (its head and chunks, not another
   * snapshot's whose name starts with it), read from the beginning to the end.
   */
  private Map<String, byte[]> read(String name) throws IOException {
    Pattern own = Pattern.compile(Pattern.quote(name) + "/(head|chunk/[0-9]+/[0-9]+)");
    Map<String, byte[]> values = new HashMap<>();
    TopicPartition partition = new TopicPartition(topic, 0);
    Properties properties = KafkaClients.properties(kafka, clientId + "-reader");
    properties.put("enable.auto.commit", "false");
    properties.put("max.partition.fetch.bytes", String.valueOf(4 * CHUNK));
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      reader.assign(List.of(partition));
      reader.seekToBeginning(List.of(partition));
      long end = reader.endOffsets(List.of(partition), WAIT).get(partition);
      long deadline = System.nanoTime() + READ_WAIT.toNanos();
      while (reader.position(partition, WAIT) < end) {
        if (System.nanoTime() - deadline > 0) {
          throw new IOException("reading " + topic + " took longer than " + READ_WAIT);
        }
        for (ConsumerRecord<byte[], byte[]> record : reader.poll(POLL)) {
          String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
          if (!own.matcher(key).matches()) {
            continue;
          }
          if (record.value() == null) {
            values.remove(key);
          } else {
            values.put(key, record.value());
          }
        }
      }
    } catch (KafkaException e) {
      throw new IOException("cannot read " + topic + ": " + e, e);
    }
    return values;
  }

  private Future<RecordMetadata> send(String key, byte[] value) {
    return producer.send(
        new ProducerRecord<>(topic, 0, key.getBytes(StandardCharsets.UTF_8), value));
  }

  private static void awaitAll(List<Future<RecordMetadata>> sent)
      throws IOException, InterruptedException {
    for (Future<RecordMetadata> record : sent) {
      try {
        record.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (ExecutionException | TimeoutException e) {
        throw new IOException("Kafka did not take a snapshot record: " + e, e);
      }
    }
  }

  private static String chunkKey(String name, long generation, int index) {
    return name + "/chunk/" + generation + "/" + index;
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  @Override
  public void close() {
    lockMembers.values().forEach(member -> member.close(Duration.ofSeconds(5)));
    lockMembers.clear();
    producer.close(Duration.ofSeconds(5));
  }
}
