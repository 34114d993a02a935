package io.kvrouter.bench;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KafkaConfig;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.VllmEventTranslator;
import io.kvrouter.events.kafka.KafkaEventPublisher;
import io.kvrouter.events.kafka.KafkaEventSubscriber;
import io.kvrouter.events.nats.NatsEventPublisher;
import io.kvrouter.events.nats.NatsEventSubscriber;
import io.kvrouter.events.zmq.DynamoZmqPublisher;
import io.kvrouter.events.zmq.DynamoZmqSubscriber;
import io.kvrouter.events.zmq.TranslatingListener;
import io.kvrouter.events.zmq.ZmqEventPublisher;
import io.kvrouter.events.zmq.ZmqEventSubscriber;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.routing.index.KvEventSink;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.testing.KafkaBroker;
import io.kvrouter.testing.NatsServerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * KV events from several publishers into one router's index, over ZMQ (vLLM's msgpack batches, one
 * SUB socket per publisher, the router hashing every block's tokens), over Dynamo's ZMQ event plane
 * (enveloped msgpack RouterEvents, one SUB socket for every publisher), over NATS (Dynamo's
 * RouterEvent JSON on one subject) and over Kafka (msgpack RouterEvents keyed by worker, an
 * in-process broker), the Dynamo ones through {@link DynamoEventFollower}, side by side in one run:
 *
 * <ul>
 *   <li><b>throughput</b>: every publisher sends its batches as fast as it can; block events per
 *       second until the index has applied the last one;
 *   <li><b>lag</b>: the publishers together send a fixed number of block events per second; for one
 *       batch in ten, the time from handing it to the publisher until the index has applied it (an
 *       index flush after the router handed it over), p50 and p99.
 * </ul>
 *
 * Publishers, nats-server, the Kafka broker and the router share the machine, as on a laptop; each
 * publisher is a thread. Every batch stores one sequence of {@code blocks} blocks from the root.
 * Each throughput is warmed up and then measured as the median of several rounds ({@link
 * WarmedRate}); each lag twice, the second reported.
 *
 * <p>Usage: {@code EventPlaneBench [PUBLISHERS=4] [BATCHES=5000] [BLOCKS=32] [RATE=100000]
 * [LAG_SECONDS=5]}
 */
public final class EventPlaneBench {
  private static final int BLOCK_SIZE = 16;
  private static final int SAMPLE_EVERY = 10;

  private final int publishers;
  private final int batches;
  private final int blocks;

  private EventPlaneBench(int publishers, int batches, int blocks) {
    this.publishers = publishers;
    this.batches = batches;
    this.blocks = blocks;
  }

  public static void main(String[] args) throws Exception {
    int publishers = arg(args, 0, 4);
    int batches = arg(args, 1, 5000);
    int blocks = arg(args, 2, 32);
    int rate = arg(args, 3, 100_000);
    int lagSeconds = arg(args, 4, 5);
    EventPlaneBench bench = new EventPlaneBench(publishers, batches, blocks);
    try (NatsServerProcess nats = NatsServerProcess.start();
        KafkaBroker kafka = KafkaBroker.start()) {
      double[] zmq = new double[1];
      double[] dynamoZmq = new double[1];
      double[] natsRate = new double[1];
      double[] kafkaRate = new double[1];
      zmq[0] = WarmedRate.median("zmq block events", () -> bench.throughput(new ZmqPlane(bench)));
      dynamoZmq[0] =
          WarmedRate.median(
              "dynamo zmq block events", () -> bench.throughput(new DynamoZmqPlane(bench)));
      natsRate[0] =
          WarmedRate.median(
              "nats block events", () -> bench.throughput(new NatsPlane(bench, nats.url())));
      kafkaRate[0] =
          WarmedRate.median(
              "kafka block events", () -> bench.throughput(new KafkaPlane(bench, kafka)));
      long[] zmqLag = null;
      long[] dynamoZmqLag = null;
      long[] natsLag = null;
      long[] kafkaLag = null;
      for (int round = 0; round < 2; round++) { // the second round is reported
        zmqLag = bench.lag(new ZmqPlane(bench), rate, lagSeconds);
        dynamoZmqLag = bench.lag(new DynamoZmqPlane(bench), rate, lagSeconds);
        natsLag = bench.lag(new NatsPlane(bench, nats.url()), rate, lagSeconds);
        kafkaLag = bench.lag(new KafkaPlane(bench, kafka), rate, lagSeconds);
      }
      System.out.printf(
          Locale.ROOT,
          "| plane | publishers | blocks per batch | block events/s (max) | lag p50 at %,d/s |"
              + " lag p99 at %,d/s | lag samples |%n",
          rate,
          rate);
      System.out.println("|---|---|---|---|---|---|---|");
      row("zmq (vLLM msgpack)", publishers, blocks, zmq[0], zmqLag);
      row("zmq (Dynamo msgpack)", publishers, blocks, dynamoZmq[0], dynamoZmqLag);
      row("nats (Dynamo JSON)", publishers, blocks, natsRate[0], natsLag);
      row("kafka (Dynamo msgpack)", publishers, blocks, kafkaRate[0], kafkaLag);
    }
  }

  private static void row(String name, int publishers, int blocks, double rate, long[] lag) {
    System.out.printf(
        Locale.ROOT,
        "| %s | %d | %d | %,.0f | %.2f ms | %.2f ms | %d |%n",
        name,
        publishers,
        blocks,
        rate,
        percentile(lag, 0.50) / 1e6,
        percentile(lag, 0.99) / 1e6,
        lag.length);
  }

  private static int arg(String[] args, int i, int fallback) {
    return args.length > i ? Integer.parseInt(args[i]) : fallback;
  }

  private static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  /** One way of carrying events from the publishers to the index. */
  private interface Plane extends AutoCloseable {
    /** Starts the publishers and the router side, feeding {@code sink}; returns when ready. */
    void start(KvEventSink sink) throws Exception;

    /** Publishes batch {@code k} of publisher {@code p}. */
    void publish(int p, int k);
  }

  /** Counts the stores each rank's events reached the index with, and samples their lag. */
  private final class TimedSink implements KvEventSink {
    final KvIndexer index = KvIndexer.create();
    final AtomicLongArray applied = new AtomicLongArray(publishers);
    final long[][] sentNanos;
    final ConcurrentLinkedQueue<Long> lags = new ConcurrentLinkedQueue<>();
    volatile boolean sampling;

    TimedSink() {
      sentNanos = new long[publishers][batches];
    }

    @Override
    public void apply(WorkerRank worker, KvCacheEvent event) {
      index.apply(worker, event);
      if (!(event instanceof KvCacheEvent.Stored)) {
        return;
      }
      int p = Integer.parseInt(worker.workerId()) - 1;
      long k = applied.getAndIncrement(p);
      if (sampling && k % SAMPLE_EVERY == 0 && k < batches) {
        long sent = sentNanos[p][(int) k];
        index.flush().thenRun(() -> lags.add(System.nanoTime() - sent));
      }
    }

    long total() {
      long sum = 0;
      for (int p = 0; p < publishers; p++) {
        sum += applied.get(p);
      }
      return sum;
    }
  }

  private double throughput(Plane plane) throws Exception {
    TimedSink sink = new TimedSink();
    try (plane;
        KvIndexer index = sink.index) {
      plane.start(sink);
      long start = System.nanoTime();
      CompletableFuture<?>[] threads = new CompletableFuture<?>[publishers];
      for (int p = 0; p < publishers; p++) {
        int publisher = p;
        threads[p] =
            CompletableFuture.runAsync(
                () -> {
                  for (int k = 0; k < batches; k++) {
                    plane.publish(publisher, k);
                  }
                },
                thread("publisher-" + p));
      }
      CompletableFuture.allOf(threads).get();
      awaitApplied(sink, (long) publishers * batches);
      index.flush().toCompletableFuture().get();
      double seconds = (System.nanoTime() - start) / 1e9;
      return (double) publishers * batches * blocks / seconds;
    }
  }

  private long[] lag(Plane plane, int blockEventsPerSecond, int seconds) throws Exception {
    TimedSink sink = new TimedSink();
    sink.sampling = true;
    long intervalNanos = (long) (1e9 * publishers * blocks / blockEventsPerSecond);
    int count = (int) Math.min(batches, (long) seconds * 1_000_000_000L / intervalNanos);
    try (plane;
        KvIndexer index = sink.index) {
      plane.start(sink);
      long start = System.nanoTime();
      CompletableFuture<?>[] threads = new CompletableFuture<?>[publishers];
      for (int p = 0; p < publishers; p++) {
        int publisher = p;
        long offset = intervalNanos * p / publishers; // spread the publishers over an interval
        threads[p] =
            CompletableFuture.runAsync(
                () -> {
                  for (int k = 0; k < count; k++) {
                    long due = start + offset + k * intervalNanos;
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                      LockSupport.parkNanos(wait);
                    }
                    sink.sentNanos[publisher][k] = System.nanoTime();
                    plane.publish(publisher, k);
                  }
                },
                thread("publisher-" + p));
      }
      CompletableFuture.allOf(threads).get();
      awaitApplied(sink, (long) publishers * count);
      index.flush().toCompletableFuture().get();
      long[] lags = sink.lags.stream().mapToLong(Long::longValue).toArray();
      Arrays.sort(lags);
      return lags;
    }
  }

  private static void awaitApplied(TimedSink sink, long expected) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (sink.total() < expected) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "only " + sink.total() + " of " + expected + " batches arrived");
      }
      Thread.sleep(1);
    }
  }

  /** Runs each task on a new daemon thread named {@code name}. */
  private static Executor thread(String name) {
    return task -> {
      Thread t = new Thread(task, name);
      t.setDaemon(true);
      t.start();
    };
  }

  private static WorkerRank rank(int p) {
    return WorkerRank.of(String.valueOf(p + 1));
  }

  /** vLLM's batches over one ZMQ PUB/SUB pair per publisher, translated by the router. */
  private static final class ZmqPlane implements Plane {
    private final EventPlaneBench bench;
    private final List<List<VllmEvent>> workload = new ArrayList<>();
    private final List<ZmqEventPublisher> publishers = new ArrayList<>();
    private final List<ZmqEventSubscriber> subscribers = new ArrayList<>();

    ZmqPlane(EventPlaneBench bench) {
      this.bench = bench;
      SplittableRandom random = new SplittableRandom(42);
      for (int k = 0; k < bench.batches; k++) {
        List<Long> hashes = new ArrayList<>(bench.blocks);
        int[] tokens = new int[bench.blocks * BLOCK_SIZE];
        for (int i = 0; i < bench.blocks; i++) {
          hashes.add(random.nextLong());
        }
        for (int t = 0; t < tokens.length; t++) {
          tokens[t] = random.nextInt(150_000);
        }
        workload.add(List.of(VllmEvent.BlockStored.of(hashes, null, tokens, BLOCK_SIZE)));
      }
    }

    @Override
    public void start(KvEventSink sink) throws Exception {
      VllmEventTranslator translator =
          new VllmEventTranslator(sink, BLOCK_SIZE, new SimpleMeterRegistry());
      for (int p = 0; p < bench.publishers; p++) {
        WorkerRank rank = rank(p);
        ZmqEventPublisher publisher =
            ZmqEventPublisher.start(ZmqEventPublisher.Options.defaults("127.0.0.1"));
        publishers.add(publisher);
        ZmqEventSubscriber subscriber =
            new ZmqEventSubscriber(
                "tcp://127.0.0.1:" + publisher.port(),
                "tcp://127.0.0.1:" + publisher.replayPort(),
                "",
                new TranslatingListener(rank, sink, translator),
                Ticker.SYSTEM);
        subscribers.add(subscriber.start());
      }
      for (ZmqEventSubscriber subscriber : subscribers) {
        while (!"following".equals(subscriber.stats().state())) {
          Thread.sleep(10);
        }
      }
      Thread.sleep(300); // past ZeroMQ's slow-joiner window
    }

    @Override
    public void publish(int p, int k) {
      publishers.get(p).publish(workload.get(k));
    }

    @Override
    public void close() {
      subscribers.forEach(ZmqEventSubscriber::close);
      publishers.forEach(ZmqEventPublisher::close);
    }
  }

  /** A Dynamo follower whose events all arrive: nothing to recover, and never probed. */
  private static DynamoEventFollower followerWithoutRecovery(KvEventSink sink) {
    return new DynamoEventFollower(
        sink,
        (rank, publisherId, start, end) ->
            CompletableFuture.failedFuture(new IllegalStateException("no recovery here")),
        false,
        Duration.ofHours(1),
        new SimpleMeterRegistry(),
        Ticker.SYSTEM);
  }

  /** Batch {@code k} of publisher {@code p}: one sequence of fresh blocks from the root. */
  private static DynamoRouterEvent dynamoBatch(int p, int k, int blocks, SplittableRandom random) {
    List<KvCacheEvent.StoredBlock> stored = new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      stored.add(new KvCacheEvent.StoredBlock(random.nextLong(), random.nextLong()));
    }
    return new DynamoRouterEvent(
        new RouterEvent(rank(p), new KvCacheEvent.Stored(null, stored)), k);
  }

  /** Every publisher's batches as Dynamo msgpack RouterEvent batches of one, by [p][k]. */
  private static byte[][][] msgpackBatches(EventPlaneBench bench, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    byte[][][] payloads = new byte[bench.publishers][bench.batches][];
    for (int p = 0; p < bench.publishers; p++) {
      for (int k = 0; k < bench.batches; k++) {
        payloads[p][k] =
            DynamoMsgpackCodec.encodeBatch(List.of(dynamoBatch(p, k, bench.blocks, random)));
      }
    }
    return payloads;
  }

  /**
   * Dynamo's ZMQ event plane: one PUB socket per publisher (topic kv-events, msgpack RouterEvent
   * batches of one in the envelope), one SUB socket for all of them.
   */
  private static final class DynamoZmqPlane implements Plane {
    private static final byte[] EMPTY_BATCH = {(byte) 0x90};
    private final EventPlaneBench bench;
    private final byte[][][] payloads;
    private final List<DynamoZmqPublisher> publishers = new ArrayList<>();
    private DynamoZmqSubscriber subscriber;
    private DynamoEventFollower follower;

    DynamoZmqPlane(EventPlaneBench bench) {
      this.bench = bench;
      payloads = msgpackBatches(bench, 44);
    }

    @Override
    public void start(KvEventSink sink) throws Exception {
      follower = followerWithoutRecovery(sink);
      List<String> endpoints = new ArrayList<>();
      for (int p = 0; p < bench.publishers; p++) {
        DynamoZmqPublisher publisher =
            DynamoZmqPublisher.start(
                DynamoZmqPublisher.Options.of(
                    "127.0.0.1", DynamoMsgpackCodec.KV_EVENTS_TOPIC, p + 1));
        publishers.add(publisher);
        endpoints.add("tcp://127.0.0.1:" + publisher.port());
      }
      DynamoEventFollower events = follower;
      subscriber =
          new DynamoZmqSubscriber(
                  endpoints,
                  DynamoMsgpackCodec.KV_EVENTS_TOPIC,
                  envelope -> events.onMsgpack(envelope.payload()))
              .start();
      // past ZeroMQ's slow joiner: each publisher's empty batches get through before the bench
      for (DynamoZmqPublisher publisher : publishers) {
        long seen = subscriber.delivered();
        while (subscriber.delivered() == seen) {
          publisher.publish(EMPTY_BATCH);
          Thread.sleep(10);
        }
      }
    }

    @Override
    public void publish(int p, int k) {
      publishers.get(p).publish(payloads[p][k]);
    }

    @Override
    public void close() {
      subscriber.close();
      publishers.forEach(DynamoZmqPublisher::close);
      follower.close();
    }
  }

  /** Dynamo's RouterEvent JSON from one NATS connection per publisher to one subscriber. */
  private static final class NatsPlane implements Plane {
    private static final String SUBJECT = "namespace.bench.component.backend.kv_events";
    private final EventPlaneBench bench;
    private final String url;
    private final byte[][][] payloads;
    private final List<NatsEventPublisher> publishers = new ArrayList<>();
    private NatsEventSubscriber subscriber;
    private DynamoEventFollower follower;

    NatsPlane(EventPlaneBench bench, String url) {
      this.bench = bench;
      this.url = url;
      SplittableRandom random = new SplittableRandom(43);
      payloads = new byte[bench.publishers][bench.batches][];
      for (int p = 0; p < bench.publishers; p++) {
        for (int k = 0; k < bench.batches; k++) {
          payloads[p][k] = DynamoEventCodec.encode(dynamoBatch(p, k, bench.blocks, random));
        }
      }
    }

    @Override
    public void start(KvEventSink sink) throws Exception {
      follower = followerWithoutRecovery(sink);
      subscriber =
          NatsEventSubscriber.start(
              NatsEventSubscriber.Options.core(io.kvrouter.config.NatsServer.plain(url), SUBJECT),
              follower::onMessage,
              Ticker.SYSTEM);
      for (int p = 0; p < bench.publishers; p++) {
        publishers.add(
            NatsEventPublisher.start(
                io.kvrouter.config.NatsServer.plain(url), "bench-" + p, 64L * 1024 * 1024));
      }
      while (!subscriber.isSubscribed()
          || publishers.stream().anyMatch(pub -> !pub.stats().connected())) {
        Thread.sleep(10);
      }
      publishers.forEach(pub -> pub.flush(Duration.ofSeconds(5)));
    }

    @Override
    public void publish(int p, int k) {
      if (!publishers.get(p).publish(SUBJECT, payloads[p][k])) {
        throw new IllegalStateException("publish dropped");
      }
    }

    @Override
    public void close() {
      publishers.forEach(NatsEventPublisher::close);
      subscriber.close();
      follower.close();
    }
  }

  /**
   * The Kafka event plane: one idempotent producer per publisher (acks=all), records keyed by
   * worker on a topic of as many partitions as publishers (Kafka's key hash picks each worker's),
   * one subscriber reading every partition. Each run has a topic of its own.
   */
  private static final class KafkaPlane implements Plane {
    private static final AtomicInteger RUNS = new AtomicInteger();
    private final EventPlaneBench bench;
    private final KafkaBroker kafka;
    private final String topic = "bench.run" + RUNS.incrementAndGet() + ".kv-events";
    private final byte[][][] payloads;
    private final List<KafkaEventPublisher> publishers = new ArrayList<>();
    private KafkaEventSubscriber subscriber;
    private DynamoEventFollower follower;

    KafkaPlane(EventPlaneBench bench, KafkaBroker kafka) {
      this.bench = bench;
      this.kafka = kafka;
      payloads = msgpackBatches(bench, 45);
    }

    @Override
    public void start(KvEventSink sink) throws Exception {
      kafka.createTopic(topic, bench.publishers);
      KafkaConfig config = new KafkaConfig(kafka.bootstrapServers(), "bench", null);
      follower = followerWithoutRecovery(sink);
      DynamoEventFollower events = follower;
      subscriber =
          KafkaEventSubscriber.start(
              config,
              List.of(topic),
              "bench-router",
              (t, position, offset, value) -> events.onMsgpack(value, position, offset + 1));
      if (!subscriber.awaitStarted(Duration.ofSeconds(60))) {
        throw new IllegalStateException("the subscriber did not find " + topic);
      }
      for (int p = 0; p < bench.publishers; p++) {
        publishers.add(KafkaEventPublisher.start(config, "bench-" + p));
      }
    }

    @Override
    public void publish(int p, int k) {
      if (!publishers.get(p).publish(topic, String.valueOf(p + 1), payloads[p][k])) {
        throw new IllegalStateException("publish dropped");
      }
    }

    @Override
    public void close() {
      publishers.forEach(KafkaEventPublisher::close);
      subscriber.close();
      follower.close();
    }
  }
}
