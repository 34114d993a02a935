package io.kvrouter.routing.index;

import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.LongAdder;

/** Events applied, by kind and outcome; optionally exposed as Micrometer counters. */
final class EventCounters {
  private static final int OUTCOMES = Outcome.values().length;

  private final LongAdder[] counts = new LongAdder[EventKind.values().length * OUTCOMES];

  EventCounters() {
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  void record(EventKind kind, Outcome outcome) {
    counts[kind.ordinal() * OUTCOMES + outcome.ordinal()].increment();
  }

  /** The indexer's statistics from these counts, with {@code pending} events not yet applied. */
  KvIndexerStats stats(long pending) {
    return new KvIndexerStats(
        total(Outcome.APPLIED),
        total(Outcome.PARENT_BLOCK_NOT_FOUND),
        total(Outcome.BLOCK_NOT_FOUND),
        total(Outcome.INVALID_BLOCK_SEQUENCE),
        pending);
  }

  long total(Outcome outcome) {
    long sum = 0;
    for (EventKind kind : EventKind.values()) {
      sum += counts[kind.ordinal() * OUTCOMES + outcome.ordinal()].sum();
    }
    return sum;
  }

  /** Registers one counter per outcome each kind can have. */
  void bindTo(MeterRegistry registry) {
    bind(registry, EventKind.STORED, Outcome.APPLIED);
    bind(registry, EventKind.STORED, Outcome.PARENT_BLOCK_NOT_FOUND);
    bind(registry, EventKind.STORED, Outcome.INVALID_BLOCK_SEQUENCE);
    bind(registry, EventKind.REMOVED, Outcome.APPLIED);
    bind(registry, EventKind.REMOVED, Outcome.BLOCK_NOT_FOUND);
    bind(registry, EventKind.CLEARED, Outcome.APPLIED);
  }

  private void bind(MeterRegistry registry, EventKind kind, Outcome outcome) {
    FunctionCounter.builder(
            MetricNames.KV_CACHE_EVENTS_APPLIED,
            counts[kind.ordinal() * OUTCOMES + outcome.ordinal()],
            LongAdder::sum)
        .description("KV cache events applied to the index, by event type and outcome")
        .tags(MetricNames.TAG_EVENT_TYPE, kind.label, MetricNames.TAG_STATUS, outcome.label)
        .register(registry);
  }
}
