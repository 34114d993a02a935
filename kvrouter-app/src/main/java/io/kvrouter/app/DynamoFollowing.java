package io.kvrouter.app;

import io.kvrouter.common.FaultLog;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the router's two Dynamo event planes, NATS ({@link NatsKvEvents}) and ZMQ ({@link
 * ZmqDynamoEvents}), share: a {@link DynamoEventFollower} whose recovery questions go over the
 * request plane, the worker ranks it follows (each reported in {@code /router/workers}), and the
 * workers' load reports handed to the router.
 */
final class DynamoFollowing {
  private static final Logger log = LoggerFactory.getLogger(DynamoFollowing.class);

  /** A worker quiet for this long is asked whether the router missed its last events. */
  static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);

  private DynamoFollowing() {}

  /**
   * A follower into the router's index, asking the workers over {@code plane} at {@code endpoints}
   * (their generate endpoints, by worker id), a map the caller keeps up to date as workers join and
   * leave (and must be safe to read from any thread). The caller closes it.
   *
   * @param atLeastOnce whether the subscription may deliver an event twice
   * @param publishers what discovery says of each worker's publishers
   */
  static DynamoEventFollower follower(
      Map<String, WorkerEndpoint> endpoints,
      Router router,
      RequestPlane plane,
      boolean atLeastOnce,
      DiscoveredPublishers publishers,
      MeterRegistry meters) {
    return new DynamoEventFollower(
        router.kvEventSink().orElseThrow(),
        new RequestPlaneRecovery(plane, endpoints, publishers),
        atLeastOnce,
        PROBE_INTERVAL,
        meters,
        Ticker.SYSTEM,
        // a discovered model's subscriptions may carry other models' workers' events
        publishers == DiscoveredPublishers.NONE ? workerId -> true : endpoints::containsKey);
  }

  /** Reports how {@code follower} follows each rank of {@code worker} in the router's status. */
  static void reportFeeds(Router router, DynamoEventFollower follower, WorkerSpec worker) {
    for (WorkerRank rank : ranks(worker)) {
      router.reportKvEventFeed(rank, () -> follower.feed(rank));
    }
  }

  /** Every data-parallel rank of {@code worker}. */
  static List<WorkerRank> ranks(WorkerSpec worker) {
    List<WorkerRank> ranks = new ArrayList<>();
    for (int dp = 0; dp < worker.dpSize(); dp++) {
      ranks.add(new WorkerRank(worker.id(), dp));
    }
    return ranks;
  }

  /**
   * Hands each load report payload, decoded by {@code decoder}, to the router; a malformed one is
   * counted under {@code format} and dropped.
   */
  static Consumer<byte[]> loadReports(
      Router router,
      MeterRegistry meters,
      String format,
      Function<byte[], WorkerLoadReport> decoder) {
    return decoded(meters, format, "load reports", decoder, router::reportLoad);
  }

  /**
   * Hands each payload, decoded by {@code decoder}, to {@code sink}; one that does not decode is
   * counted as malformed under {@code format}, logged as one of {@code what}, and dropped.
   */
  static <T> Consumer<byte[]> decoded(
      MeterRegistry meters,
      String format,
      String what,
      Function<byte[], T> decoder,
      Consumer<T> sink) {
    Counter malformed =
        Counter.builder(MetricNames.KV_EVENT_MALFORMED)
            .tag(MetricNames.TAG_FORMAT, format)
            .register(meters);
    FaultLog faults = FaultLog.of(log, "malformed " + what);
    return payload -> {
      T value;
      try {
        value = decoder.apply(payload);
      } catch (IllegalArgumentException e) {
        malformed.increment();
        faults.fault(e.getMessage());
        return;
      }
      sink.accept(value);
    };
  }
}
