package io.kvrouter.worker.engine;

import java.util.Objects;

/**
 * A request as the engine schedules it.
 *
 * @param id unique among the engine's requests
 * @param promptTokens prompt length
 * @param sequenceHashes sequence hashes of the prompt's full blocks, in order; not copied
 * @param localHashes local hashes of the same blocks; not copied
 * @param maxOutputTokens tokens to generate at most ({@link EngineListener#onToken} may stop
 *     sooner)
 */
public record EngineRequest(
    String id, int promptTokens, long[] sequenceHashes, long[] localHashes, int maxOutputTokens) {

  public EngineRequest {
    Objects.requireNonNull(id, "id");
    if (promptTokens < 1) {
      throw new IllegalArgumentException("a prompt has at least 1 token: " + promptTokens);
    }
    if (sequenceHashes.length != localHashes.length) {
      throw new IllegalArgumentException(
          sequenceHashes.length + " sequence hashes, " + localHashes.length + " local hashes");
    }
    if (maxOutputTokens < 1) {
      throw new IllegalArgumentException("max output tokens must be >= 1: " + maxOutputTokens);
    }
  }
}
