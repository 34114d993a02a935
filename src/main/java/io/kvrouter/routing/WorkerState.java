package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

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

  WorkerStatus status(Optional<WorkerStatus.KvView> kv) {
    return new WorkerStatus(id(), endpoint.address(), healthy.get(), activeRequests.get(), kv);
  }
}
