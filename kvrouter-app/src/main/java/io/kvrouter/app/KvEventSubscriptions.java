package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.events.VllmEventTranslator;
import io.kvrouter.events.zmq.TranslatingListener;
import io.kvrouter.events.zmq.ZmqEventSubscriber;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.Router;
import io.kvrouter.routing.index.KvEventSink;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The router's side of the event plane: one ZMQ subscriber per worker rank that publishes vLLM KV
 * cache events, each feeding the KV index through the translator. A subscriber that loses track of
 * its publisher's state clears the rank in the index before rebuilding it.
 */
final class KvEventSubscriptions implements AutoCloseable {
  private final List<ZmqEventSubscriber> subscribers = new ArrayList<>();

  private KvEventSubscriptions() {}

  /**
   * Starts following every source; {@code sources} maps each rank to its publisher. If one cannot
   * start, those already started are closed before the error is thrown.
   *
   * @param maxMessageBytes the largest frame taken from a publisher
   */
  static KvEventSubscriptions start(
      Map<WorkerRank, KvEventSource> sources,
      Router router,
      int blockSize,
      long maxMessageBytes,
      MeterRegistry meters) {
    KvEventSink sink = router.kvEventSink().orElseThrow();
    KvEventSubscriptions subscriptions = new KvEventSubscriptions();
    VllmEventTranslator translator = new VllmEventTranslator(sink, blockSize, meters);
    try {
      sources.forEach(
          (rank, source) -> {
            ZmqEventSubscriber subscriber =
                new ZmqEventSubscriber(
                    source.endpoint(),
                    source.replayEndpoint(),
                    "",
                    new TranslatingListener(rank, sink, translator),
                    ZmqEventSubscriber.Timing.defaults(),
                    maxMessageBytes,
                    Ticker.SYSTEM);
            register(meters, rank, subscriber);
            router.reportKvEventFeed(rank, () -> feed(subscriber.stats()));
            subscriptions.subscribers.add(subscriber.start());
          });
    } catch (RuntimeException e) {
      subscriptions.close();
      throw e;
    }
    return subscriptions;
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

  private static void register(
      MeterRegistry meters, WorkerRank rank, ZmqEventSubscriber subscriber) {
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
            FunctionCounter.builder(name, subscriber, value)
                .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                .register(meters));
    Map<String, ToDoubleFunction<ZmqEventSubscriber>> abandoned =
        Map.of(
            MetricNames.REASON_HELD_LIMIT, s -> s.stats().replaysOverHeldLimit(),
            MetricNames.REASON_DEADLINE, s -> s.stats().replaysOverdue());
    abandoned.forEach(
        (reason, value) ->
            FunctionCounter.builder(MetricNames.KV_EVENT_ABANDONED_REPLAYS, subscriber, value)
                .tag(MetricNames.TAG_WORKER_ID, rank.workerId())
                .tag(MetricNames.TAG_DP_RANK, String.valueOf(rank.dpRank()))
                .tag(MetricNames.TAG_REASON, reason)
                .register(meters));
  }

  /** Stops every subscriber; blocks until their threads end (not for an event loop). */
  @Override
  public void close() {
    subscribers.forEach(ZmqEventSubscriber::close);
  }
}
