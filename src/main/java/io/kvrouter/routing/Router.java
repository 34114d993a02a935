package io.kvrouter.routing;

import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Future;
import java.util.List;

/** Picks a worker for each request and forwards it there. */
public interface Router {

  /**
   * Sends {@code request} to a healthy worker. A worker that cannot take the request, or fails
   * before its first output, is passed over for the next healthy one without the caller seeing it.
   * Fails with {@link io.kvrouter.protocol.NoWorkerAvailableException} when no worker can take
   * it.
   */
  Future<ResponseStream> generate(String requestId, PreprocessedRequest request);

  /** A snapshot of every worker, in configuration order. */
  List<WorkerStatus> workers();

  default boolean hasHealthyWorker() {
    return workers().stream().anyMatch(WorkerStatus::healthy);
  }

  /** Probes every worker once, so unreachable workers are known before traffic arrives. */
  Future<Void> start();

  /** Stops health probing. */
  void close();
}
