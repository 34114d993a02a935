package io.kvrouter.app;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.common.DaemonThreads;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.protocol.dynamo.DynamoEventCodec;
import io.kvrouter.protocol.dynamo.DynamoEventFormatException;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.transport.RequestPlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

/**
 * Asks workers' local KV indexers for their events where Dynamo's router asks them: over the
 * request plane, at the worker's request-plane address ({@link WorkerEndpoint#sibling}), to the
 * endpoint {@code worker_kv_query_source_{publisher_id:x}} of the publisher whose envelopes carry
 * the rank's events (Dynamo v1.5 and later; the one discovery names for the worker, when it names
 * one, comes first: an id from an index snapshot may be a former process's), or, when no envelope
 * named one (Dynamo before v1.5, or nothing published yet), to rank {@code r}'s {@code
 * worker_kv_indexer_query_dp{r}}. A worker that refuses the publisher's endpoint (releases before
 * v1.5, whose envelopes carried the instance id) is asked again at the rank's. The answer is the
 * one item of the response stream; it is decoded on a thread of its own, since a tree dump of a
 * full cache is megabytes of JSON.
 */
final class RequestPlaneRecovery implements DynamoEventFollower.RecoveryClient {
  /** How long a worker has to answer a question for events (Dynamo waits 1 s). */
  static final Duration QUERY_TIMEOUT = Duration.ofSeconds(2);

  /** How long a tree dump may take to arrive: a large cache's dump is tens of MB. */
  static final Duration DUMP_TIMEOUT = Duration.ofSeconds(30);

  /** Decodes answers: one daemon thread, shared, idle when nothing is asked. */
  private static final Executor DECODER =
      Executors.newSingleThreadExecutor(DaemonThreads.named("kv-recovery-decode"));

  private final RequestPlane plane;
  private final Map<String, WorkerEndpoint> workers;
  private final DiscoveredPublishers publishers;

  /**
   * @param workers each worker's generate endpoint, by worker id: read at each question, so a
   *     worker that joined since is asked and one that left is not; safe to read from any thread
   */
  RequestPlaneRecovery(RequestPlane plane, Map<String, WorkerEndpoint> workers) {
    this(plane, workers, DiscoveredPublishers.NONE);
  }

  /**
   * @param publishers the publisher a discovered worker answers for, asked when no envelope has
   *     named one yet
   */
  RequestPlaneRecovery(
      RequestPlane plane, Map<String, WorkerEndpoint> workers, DiscoveredPublishers publishers) {
    this.plane = plane;
    this.workers = workers;
    this.publishers = publishers;
  }

  @Override
  public CompletableFuture<WorkerKvQueryResult> query(
      WorkerRank rank, Long publisherId, Long start, Long end) {
    WorkerEndpoint worker = workers.get(rank.workerId());
    if (worker == null) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("no request-plane address for worker " + rank.workerId()));
    }
    byte[] question =
        WorkerKvQueryCodec.encodeQuery(
            new WorkerKvQueryCodec.Query(
                DynamoEventCodec.workerIdToU64(rank.workerId()), rank.dpRank(), start, end));
    Duration timeout = start == null ? DUMP_TIMEOUT : QUERY_TIMEOUT;
    // discovery's word is the current one; the follower's may come from an old snapshot
    Long discovered = publishers.soleSourcePublisher(rank.workerId());
    if (discovered != null) {
      publisherId = discovered;
    }
    String rankEndpoint = WorkerKvQueryCodec.endpoint(rank.dpRank());
    CompletableFuture<List<JsonNode>> items =
        publisherId == null
            ? ask(worker, rankEndpoint, question, timeout)
            : ask(worker, WorkerKvQueryCodec.sourceEndpoint(publisherId), question, timeout)
                .exceptionallyCompose(
                    failure ->
                        refused(failure)
                            // envelopes of releases before v1.5 (publisher id = instance id)
                            ? ask(worker, rankEndpoint, question, timeout)
                            : CompletableFuture.failedFuture(failure));
    return items.thenApplyAsync(RequestPlaneRecovery::decode, DECODER);
  }

  private CompletableFuture<List<JsonNode>> ask(
      WorkerEndpoint worker, String endpoint, byte[] question, Duration timeout) {
    return plane
        .ask(worker.sibling(endpoint), UUID.randomUUID().toString(), question, timeout)
        .toCompletionStage()
        .toCompletableFuture();
  }

  /** Whether the worker answered but would not take the question (it serves no such endpoint). */
  private static boolean refused(Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    return cause instanceof WorkerUnavailableException unavailable && unavailable.refused();
  }

  private static WorkerKvQueryResult decode(List<JsonNode> items) {
    if (items.size() != 1) {
      throw new DynamoEventFormatException(
          "a recovery answer is one stream item, got " + items.size());
    }
    return WorkerKvQueryCodec.decodeResult(items.get(0));
  }
}
