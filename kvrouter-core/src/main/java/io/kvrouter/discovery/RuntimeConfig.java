package io.kvrouter.discovery;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The parts of a card's {@code runtime_config} ({@code ModelRuntimeConfig}, {@code
 * lib/llm/src/local_model/runtime_config.rs} @000a36a7) a router uses; the card's JSON keeps the
 * rest.
 *
 * @param contextLength the engine's context length, if it said
 * @param totalKvBlocks the KV cache's blocks per rank, if known
 * @param maxNumSeqs requests run at once, if known
 * @param maxNumBatchedTokens tokens per engine step, if known
 * @param dataParallelStartRank the first data-parallel rank this worker serves (default 0)
 * @param dataParallelSize how many ranks from there (default 1)
 * @param enableLocalIndexer whether the worker keeps a local indexer that answers recovery queries
 *     (default true)
 */
public record RuntimeConfig(
    OptionalInt contextLength,
    OptionalLong totalKvBlocks,
    OptionalLong maxNumSeqs,
    OptionalLong maxNumBatchedTokens,
    int dataParallelStartRank,
    int dataParallelSize,
    boolean enableLocalIndexer) {

  /** What Dynamo assumes for a card without {@code runtime_config}. */
  public static final RuntimeConfig DEFAULTS =
      new RuntimeConfig(
          OptionalInt.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          OptionalLong.empty(),
          0,
          1,
          true);
}
