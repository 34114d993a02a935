package io.kvrouter.routing;

import java.util.Objects;

/**
 * A request's prompt as the router's policies see it after hashing.
 *
 * @param requestId unique among requests in flight
 * @param inputTokens prompt length in tokens
 * @param localHashes local hashes of the prompt's full blocks ({@code tokens_hash}); not copied
 * @param sequenceHashes their chained sequence hashes; not copied
 */
public record HashedPrompt(
    String requestId, int inputTokens, long[] localHashes, long[] sequenceHashes) {
  public HashedPrompt {
    Objects.requireNonNull(requestId, "requestId");
    if (localHashes.length != sequenceHashes.length) {
      throw new IllegalArgumentException(
          localHashes.length + " local hashes, " + sequenceHashes.length + " sequence hashes");
    }
  }
}
