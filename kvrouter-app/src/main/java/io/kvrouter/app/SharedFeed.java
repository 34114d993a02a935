package io.kvrouter.app;

import io.kvrouter.config.WorkerSpec;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers followed on an event plane where every worker's Dynamo events come through one feed
 * (a NATS subject, a Kafka topic): the {@link DynamoEventFollower} that applies them, which ranks
 * it asks for their state, and the subscriptions that feed it ({@link #attach}), closed with it.
 * {@link NatsKvEvents} and {@link KafkaKvEvents} build one for their transport.
 *
 * <p>The feed is shared by every worker, so a worker joining or leaving changes no subscription: a
 * joining worker's ranks are asked for their state once the feed is up (so that nothing published
 * after the answer is missed), and a leaving worker is forgotten by the follower, which drops its
 * events from then on.
 */
final class SharedFeed implements WorkerEventSources {
  private static final Logger log = LoggerFactory.getLogger(SharedFeed.class);

  final DynamoEventFollower follower;
  private final Router router;
  private final Map<String, WorkerEndpoint> endpoints;
  private final DiscoveredPublishers publishers;

  /** The ranks of the workers followed, asked for their state once the feed is up. */
  private final Set<WorkerRank> ranks = ConcurrentHashMap.newKeySet();

  private volatile boolean up;

  /** Ranks a snapshot restored whose worker has not caught up yet ({@link #restore}). */
  private final Set<WorkerRank> restored = ConcurrentHashMap.newKeySet();

  private volatile boolean closed;

  /** The subscriptions feeding the follower, in the order they were attached. */
  private final List<AutoCloseable> subscriptions = new CopyOnWriteArrayList<>();

  private SharedFeed(
      DynamoEventFollower follower,
      Router router,
      Map<String, WorkerEndpoint> endpoints,
      DiscoveredPublishers publishers) {
    this.follower = follower;
    this.router = router;
    this.endpoints = endpoints;
    this.publishers = publishers;
  }

  /**
   * A follower into {@code router}'s index, asking workers over {@code plane}; the caller closes it
   * (through {@link #close}).
   *
   * @param atLeastOnce whether the feed may deliver an event twice
   * @param snapshot the fleet's index snapshot to start from ({@link #restore}), if any
   */
  static SharedFeed create(
      Router router,
      RequestPlane plane,
      boolean atLeastOnce,
      DiscoveredPublishers publishers,
      Optional<IndexSnapshot> snapshot,
      MeterRegistry meters) {
    Map<String, WorkerEndpoint> endpoints = new ConcurrentHashMap<>();
    SharedFeed feed =
        new SharedFeed(
            DynamoFollowing.follower(endpoints, router, plane, atLeastOnce, publishers, meters),
            router,
            endpoints,
            publishers);
    snapshot.ifPresent(s -> feed.restore(s, IndexSnapshotKeeper.RESTORE_GRACE));
    return feed;
  }

  /** Closes {@code subscription} with the feed, before the follower. */
  void attach(AutoCloseable subscription) {
    subscriptions.add(subscription);
  }

  /**
   * Starts from {@code snapshot}, before any subscription: each rank it holds a position for waits
   * for its worker, and once the worker is followed and the feed is up, its snapshot state goes
   * into the index and it asks for what came after, instead of for its whole state. Ranks whose
   * worker is not followed within {@code grace} (it left the fleet while no router saw it), or no
   * longer has them, are forgotten then, and their snapshot state with them.
   */
  private void restore(IndexSnapshot snapshot, Duration grace) {
    IndexSnapshots.restore(snapshot, follower);
    restored.addAll(snapshot.lastEventIds().keySet());
    CompletableFuture.runAsync(
        this::forgetUnfollowed,
        CompletableFuture.delayedExecutor(grace.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** Forgets the restored ranks that no followed worker has. */
  private synchronized void forgetUnfollowed() {
    if (closed) {
      return;
    }
    Set<String> gone = new TreeSet<>();
    for (WorkerRank rank : List.copyOf(restored)) {
      if (!endpoints.containsKey(rank.workerId())) {
        gone.add(rank.workerId());
      } else if (!ranks.contains(rank)) {
        restored.remove(rank);
        follower.forget(rank); // its worker runs fewer ranks now
      }
    }
    for (String workerId : gone) {
      restored.removeIf(rank -> rank.workerId().equals(workerId));
      follower.forget(workerId);
    }
    if (!gone.isEmpty()) {
      log.info("Workers {} of the index snapshot have not joined: their state is dropped", gone);
    }
  }

  /** The feed is up for the first time: every rank followed so far is asked for its state. */
  synchronized void up() {
    up = true;
    ranks.forEach(this::askState);
  }

  /** A rank a snapshot restored asks for what came after it; any other for its whole state. */
  private void askState(WorkerRank rank) {
    if (restored.remove(rank)) {
      follower.catchUp(rank);
    } else {
      follower.follow(rank);
    }
  }

  /**
   * Follows {@code worker}'s ranks; they are asked for their state now if the feed is up. A
   * discovered worker without a local indexer is asked nothing, its events are applied as they
   * come; only the ranks a snapshot restored catch up (their held events go to the index).
   */
  @Override
  public synchronized void follow(WorkerSpec worker, WorkerEndpoint endpoint) {
    endpoints.put(worker.id(), endpoint);
    DynamoFollowing.reportFeeds(router, follower, worker);
    boolean answers = publishers.answersQueries(worker.id());
    for (WorkerRank rank : DynamoFollowing.ranks(worker)) {
      if (!answers && !restored.contains(rank)) {
        continue;
      }
      ranks.add(rank);
      if (up) {
        askState(rank);
      }
    }
  }

  @Override
  public synchronized void unfollow(String workerId) {
    ranks.removeIf(rank -> rank.workerId().equals(workerId));
    restored.removeIf(rank -> rank.workerId().equals(workerId));
    follower.forget(workerId);
    endpoints.remove(workerId);
  }

  /** Closes the subscriptions, the last attached first, then the follower. */
  @Override
  public void close() {
    closed = true;
    for (int i = subscriptions.size() - 1; i >= 0; i--) {
      try {
        subscriptions.get(i).close();
      } catch (Exception e) {
        log.warn("closing a KV event subscription failed", e);
      }
    }
    follower.close();
  }
}
