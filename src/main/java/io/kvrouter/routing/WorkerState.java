package io.kvrouter.routing;

import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/** The router's live view of one worker: health and requests in flight. */
final class WorkerState {
  final WorkerEndpoint endpoint;
  final long totalKvBlocks;
  /** The worker's one data-parallel rank (static workers run without data parallelism). */
  final WorkerRank rank;
  final AtomicBoolean healthy = new AtomicBoolean(true);
  final AtomicInteger activeRequests = new AtomicInteger();

  WorkerState(RouteTarget target) {
    this.endpoint = target.endpoint();
    this.totalKvBlocks = target.totalKvBlocks();
    this.rank = WorkerRank.of(endpoint.workerId());
  }

  String id() {
    return endpoint.workerId();
  }

  /** Reports how this worker's KV cache events are followed, once a subscriber follows them. */
  volatile Supplier<KvEventFeed> kvEventFeed;

  WorkerStatus status(Optional<WorkerStatus.KvView> kv) {
    Supplier<KvEventFeed> feed = kvEventFeed;
    return new WorkerStatus(
        id(), endpoint.address(), healthy.get(), activeRequests.get(), kv,
        feed == null ? Optional.empty() : Optional.of(feed.get()));
  }
}
