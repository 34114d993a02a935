package io.kvrouter.tools.trace;

import io.kvrouter.protocol.hash.BlockHasher;

/**
 * The router's block hashes of a trace request's synthetic prompt ({@link SyntheticTokens}): what a
 * live router computes for the same prompt, so simulated and live runs see the same blocks.
 *
 * @param local local hashes of the prompt's full blocks
 * @param sequence their chained sequence hashes
 */
public record PromptBlocks(long[] local, long[] sequence) {

  public static PromptBlocks of(int[] promptTokens, BlockHasher hasher) {
    long[] local = hasher.localHashes(promptTokens);
    return new PromptBlocks(local, BlockHasher.chain(local));
  }
}
