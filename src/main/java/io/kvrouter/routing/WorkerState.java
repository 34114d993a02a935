package io.kvrouter.routing;

import io.kvrouter.protocol.WorkerEndpoint;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** The router's live view of one worker: health and requests in flight. */
final class WorkerState {
  final WorkerEndpoint endpoint;
  final AtomicBoolean healthy = new AtomicBoolean(true);
  final AtomicInteger activeRequests = new AtomicInteger();

  WorkerState(WorkerEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  String id() {
    return endpoint.workerId();
  }

  WorkerStatus status() {
    return new WorkerStatus(id(), endpoint.address(), healthy.get(), activeRequests.get());
  }
}
