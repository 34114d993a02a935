package io.kvrouter.worker.engine;

import io.kvrouter.worker.kv.DynamoSequence;
import io.kvrouter.worker.kv.SequenceBlocks;
import java.util.Objects;

/**
 * A request as the engine schedules it.
 *
 * @param id unique among the engine's requests
 * @param promptTokens prompt length
 * @param blocks its sequence's full blocks, named as the engine's cache names them: the prompt's
 *     from the start, each output block by the time its tokens are computed (the engine computes a
 *     token's KV in the step after {@link EngineListener#onToken} reported it)
 * @param maxOutputTokens tokens to generate at most ({@link EngineListener#onToken} may stop
 *     sooner)
 */
public record EngineRequest(
    String id, int promptTokens, SequenceBlocks blocks, int maxOutputTokens) {

  public EngineRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(blocks, "blocks");
    if (promptTokens < 1) {
      throw new IllegalArgumentException("a prompt has at least 1 token: " + promptTokens);
    }
    if (maxOutputTokens < 1) {
      throw new IllegalArgumentException("max output tokens must be >= 1: " + maxOutputTokens);
    }
  }

  /**
   * A request known by the router's hashes of its prompt's full blocks ({@link DynamoSequence}, its
   * output blocks named from its id), as the simulator's are.
   *
   * @param sequenceHashes sequence hashes of the prompt's full blocks, in order; not copied
   * @param localHashes local hashes of the same blocks; not copied
   */
  public EngineRequest(
      String id, int promptTokens, long[] sequenceHashes, long[] localHashes, int maxOutputTokens) {
    this(
        id,
        promptTokens,
        new DynamoSequence(sequenceHashes, localHashes, DynamoSequence.seedOf(id)),
        maxOutputTokens);
  }
}
