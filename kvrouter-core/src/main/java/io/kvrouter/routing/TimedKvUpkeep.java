package io.kvrouter.routing;

import io.kvrouter.routing.index.ApproximateIndex;
import io.kvrouter.routing.schedule.ActiveSequences;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The live router's KV upkeep, on Vert.x timers whose work runs off the event loops: one frees
 * requests whose end was never seen (older than {@link #MAX_REQUEST_AGE}) and, in approximate mode,
 * one expires learned blocks.
 */
final class TimedKvUpkeep implements KvUpkeep {
  /** How often requests whose end was lost are looked for. */
  static final Duration SWEEP_PERIOD = Duration.ofMinutes(1);

  /** A request booked longer ago than this is presumed ended and freed by the sweep. */
  static final Duration MAX_REQUEST_AGE = Duration.ofMinutes(10);

  private final Vertx vertx;
  private final List<Long> timers = new ArrayList<>();

  private TimedKvUpkeep(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Starts the timers of {@code scheduling}'s upkeep. */
  static TimedKvUpkeep start(KvScheduling scheduling, Vertx vertx) {
    TimedKvUpkeep upkeep = new TimedKvUpkeep(vertx);
    ApproximateIndex learned = scheduling.learned;
    if (learned != null) {
      upkeep.every(expiryPeriod(learned.settings().ttl()), learned::expire);
    }
    ActiveSequences active = scheduling.active;
    upkeep.every(SWEEP_PERIOD, () -> active.sweep(MAX_REQUEST_AGE));
    return upkeep;
  }

  /** Expiry runs often enough to honour short TTLs and at most once a second. */
  static Duration expiryPeriod(Duration ttl) {
    long millis = Math.max(10, Math.min(1000, ttl.toMillis() / 10));
    return Duration.ofMillis(millis);
  }

  private void every(Duration period, Runnable work) {
    timers.add(
        vertx.setPeriodic(
            period.toMillis(),
            id ->
                vertx.executeBlocking(
                    () -> {
                      work.run();
                      return null;
                    },
                    false)));
  }

  @Override
  public void beforeChoice() {}

  @Override
  public void close() {
    timers.forEach(vertx::cancelTimer);
  }
}
