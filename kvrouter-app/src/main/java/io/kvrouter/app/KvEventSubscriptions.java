package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.KvEventsFormat;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.events.VllmEventTranslator;
import io.kvrouter.events.zmq.TranslatingListener;
import io.kvrouter.events.zmq.ZmqEventSubscriber;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The router's side of vLLM's event plane: one ZMQ subscriber per rank of every worker that
 * publishes vLLM KV cache events, each feeding the KV index through the translator, from the
 * worker's joining to its leaving. A subscriber that loses track of its publisher's state clears
 * the rank in the index before rebuilding it.
 */
final class KvEventSubscriptions implements WorkerEventSources {
  private final Router router;
  private final KvEventSink sink;
  private final VllmEventTranslator translator;
  private final long maxMessageBytes;
  private final MeterRegistry meters;

  /** Each followed worker's subscribers, one per rank; under {@code this}. */
  private final Map<String, List<Subscription>> byWorker = new HashMap<>();

  /** A rank's subscriber and the meters that read it, which go with it. */
  private record Subscription(ZmqEventSubscriber subscriber, List<Meter> meters) {}

  /**
   * Subscriptions feeding {@code router}'s index, which must follow KV events.
   *
   * @param maxMessageBytes the largest frame taken from a publisher
   */
  KvEventSubscriptions(Router router, int blockSize, long maxMessageBytes, MeterRegistry meters) {
    this.router = router;
    this.sink = router.kvEventSink().orElseThrow();
    this.translator = new VllmEventTranslator(sink, blockSize, meters);
    this.maxMessageBytes = maxMessageBytes;
    this.meters = meters;
  }

  /**
   * The publisher of every rank of {@code worker}, if it publishes vLLM's format: rank {@code r} of
   * a {@code dp-size=N} worker publishes on the base ports plus {@code r}, as vLLM does.
   */
  static Map<WorkerRank, KvEventSource> rankSources(WorkerSpec worker) {
    Map<WorkerRank, KvEventSource> sources = new LinkedHashMap<>();
    worker
        .kvEvents()
        .filter(source -> source.format() == KvEventsFormat.VLLM)
        .ifPresent(
            source -> {
              for (int dp = 0; dp < worker.dpSize(); dp++) {
                sources.put(new WorkerRank(worker.id(), dp), source.forRank(dp));
              }
            });
    return sources;
  }

  @Override
  public synchronized void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    Map<WorkerRank, KvEventSource> sources = rankSources(worker);
    if (sources.isEmpty()) {
      return;
    }
    List<Subscription> started = new ArrayList<>();
    try {
      sources.forEach((rank, source) -> started.add(subscribe(rank, source)));
    } catch (RuntimeException e) {
      started.forEach(this::close);
      throw e;
    }
    byWorker.put(worker.id(), started);
  }

  private Subscription subscribe(WorkerRank rank, KvEventSource source) {
    ZmqEventSubscriber subscriber =
        new ZmqEventSubscriber(
            source.endpoint(),
            source.replayEndpoint(),
            "",
            new TranslatingListener(rank, sink, translator),
            ZmqEventSubscriber.Timing.defaults(),
            maxMessageBytes,
            Ticker.SYSTEM);
    Subscription subscription = new Subscription(subscriber, register(meters, rank, subscriber));
    router.reportKvEventFeed(rank, () -> feed(subscriber.stats()));
    try {
      subscriber.start();
    } catch (RuntimeException e) {
      close(subscription);
      throw e;
    }
    return subscription;
  }

  @Override
  public synchronized void unfollow(String workerId) {
    List<Subscription> gone = byWorker.remove(workerId);
    if (gone != null) {
      gone.forEach(this::close);
      translator.forget(workerId);
    }
  }

  private void close(Subscription subscription) {
    subscription.subscriber().close();
    subscription.meters().forEach(meters::remove);
  }

  private static KvEventFeed feed(ZmqEventSubscriber.Stats stats) {
    return new KvEventFeed(
        stats.state(),
        stats.lastSeq(),
        stats.batches(),
        stats.gaps(),
        stats.resets(),
        stats.incompleteReplays(),
        stats.millisSinceLastBatch());
  }

  private static List<Meter> register(
      MeterRegistry meters, WorkerRank rank, ZmqEventSubscriber subscriber) {
    List<Meter> registered = new ArrayList<>();
    Map<String, ToDoubleFunction<ZmqEventSubscriber>> counters =
        Map.of(
            MetricNames.KV_EVENT_BATCHES, s -> s.stats().batches(),
            MetricNames.KV_EVENT_GAPS, s -> s.stats().gaps(),
            MetricNames.KV_EVENT_REPLAYED, s -> s.stats().replayed(),
            MetricNames.KV_EVENT_RESETS, s -> s.stats().resets(),
            MetricNames.KV_EVENT_INCOMPLETE_REPLAYS, s -> s.stats().incompleteReplays(),
            MetricNames.KV_EVENT_MALFORMED, s -> s.stats().malformed(),
            MetricNames.KV_EVENT_DUPLICATES, s -> s.stats().duplicates(),
            MetricNames.KV_EVENT_LISTENER_ERRORS, s -> s.stats().listenerErrors(),
            MetricNames.KV_EVENT_OVERSIZED, s -> s.stats().oversized());
    counters.forEach(
        (name, value) ->
            registered.add(
                FunctionCounter.builder(name, subscriber, value)
                    .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                    .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                    .register(meters)));
    Map<String, ToDoubleFunction<ZmqEventSubscriber>> abandoned =
        Map.of(
            MetricNames.REASON_HELD_LIMIT, s -> s.stats().replaysOverHeldLimit(),
            MetricNames.REASON_DEADLINE, s -> s.stats().replaysOverdue());
    abandoned.forEach(
        (reason, value) ->
            registered.add(
                FunctionCounter.builder(MetricNames.KV_EVENT_ABANDONED_REPLAYS, subscriber, value)
                    .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                    .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                    .tag(MetricNames.TAG_REASON, reason)
                    .register(meters)));
    return registered;
  }

  /** Stops every subscriber; blocks until their threads end (not for an event loop). */
  @Override
  public synchronized void close() {
    byWorker.values().forEach(subscriptions -> subscriptions.forEach(this::close));
    byWorker.clear();
  }
}
