package io.kvrouter.routing.schedule;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.Map;

/**
 * The requests routed to each worker rank and not yet finished, and the load they predict (Dynamo's
 * {@code ActiveSequences}): per rank, the distinct KV blocks of its active requests (reference
 * counted across requests that share a prefix) and the prompt tokens still to prefill.
 *
 * <p>Lifecycle of a request: {@link #add} when it is routed, with its block hashes and the prompt
 * tokens the worker has to prefill ({@code max(0, isl - overlap * blockSize)}); {@link
 * #markPrefillDone} at its first output token, which drops its prefill tokens; {@link #free} at its
 * end, error or cancellation, which drops everything it holds. {@link #sweep} frees requests older
 * than an age, in case a free was lost.
 *
 * <p>Thread-safe: any thread may call any method. Each rank's counts change under that rank's lock,
 * so a {@link #load} sees a request either wholly booked or not at all; a request is freed at most
 * once however {@link #free}, {@link #sweep} and {@link #removeWorker} race; counts never go
 * negative.
 */
public interface ActiveSequences extends LoadView {

  /** A tracker that ages requests by {@code ticker}. */
  static ActiveSequences create(Ticker ticker) {
    return new LocalActiveSequences(ticker);
  }

  /**
   * Books {@code requestId} on {@code worker}: its blocks join the rank's active blocks and its
   * {@code prefillTokens} the rank's active prefill tokens.
   *
   * @param blockHashes the sequence hashes of the request's blocks (assumed distinct, as {@link
   *     ScheduleRequest#blockHashes()} are); copied
   * @param prefillTokens the prompt tokens {@code worker} has to compute; {@code >= 0}
   * @return false, booking nothing, when {@code requestId} is already active
   */
  boolean add(String requestId, WorkerRank worker, long[] blockHashes, long prefillTokens);

  /**
   * Drops the prefill tokens of {@code requestId} (its first token arrived); its blocks stay.
   *
   * @return false when it is not active or its prefill was already marked done
   */
  boolean markPrefillDone(String requestId);

  /**
   * Drops everything {@code requestId} holds (it ended, failed or was cancelled).
   *
   * @return false when it is not active
   */
  boolean free(String requestId);

  /**
   * Frees every request booked more than {@code maxAge} ago by the ticker.
   *
   * @return how many were freed
   */
  int sweep(Duration maxAge);

  /**
   * Frees every request on any rank of {@code workerId} (the worker left).
   *
   * @return how many were freed
   */
  int removeWorker(String workerId);

  /** Whether {@code requestId} is active. */
  boolean isActive(String requestId);

  /** Active requests over all ranks. */
  int activeRequests();

  /** The load of every rank with at least one active request, each read at one instant. */
  Map<WorkerRank, WorkerLoad> loads();
}
