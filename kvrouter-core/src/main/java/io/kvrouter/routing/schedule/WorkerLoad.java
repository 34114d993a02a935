package io.kvrouter.routing.schedule;

/**
 * The predicted load of one worker rank from the requests routed to it and not yet finished.
 *
 * @param activeRequests requests routed to it and not freed
 * @param activeBlocks distinct KV blocks of those requests (Dynamo's {@code active_blocks})
 * @param activePrefillTokens prompt tokens of those requests still to prefill, i.e. without a first
 *     token yet (Dynamo's {@code active_tokens})
 * @param newBlocks of the blocks asked about in {@link
 *     LoadView#load(io.kvrouter.protocol.WorkerRank, long[])}, how many are not among the active
 *     blocks; 0 when none were asked about
 */
public record WorkerLoad(
    int activeRequests, long activeBlocks, long activePrefillTokens, int newBlocks) {

  /** A rank with nothing active. */
  public static final WorkerLoad IDLE = new WorkerLoad(0, 0, 0, 0);
}
