package io.kvrouter.worker.engine;

/**
 * An engine's capacity and batching limits, named as vLLM and Dynamo's mocker name them.
 *
 * @param blockSize tokens per KV block ({@code --block-size})
 * @param numGpuBlocks KV cache capacity in blocks ({@code --num-gpu-blocks})
 * @param maxNumSeqs most requests running at once ({@code --max-num-seqs}, 256)
 * @param maxNumBatchedTokens most tokens computed in one step, decodes and prefill chunks together
 *     ({@code --max-num-batched-tokens}, 8192); a longer prompt is prefilled in chunks
 * @param watermark fraction of the cache kept free when admitting a request ({@code 0.01}): a
 *     request is admitted only if the blocks in use, with its new prompt blocks, stay within {@code
 *     (1 − watermark) · numGpuBlocks}
 * @param timing how long steps take
 */
public record EngineSettings(
    int blockSize,
    int numGpuBlocks,
    int maxNumSeqs,
    int maxNumBatchedTokens,
    double watermark,
    TimingModel timing) {

  /** The mocker's defaults (16,384 blocks of 64 tokens, 256 sequences, 8,192 tokens a step). */
  public static final EngineSettings MOCKER_DEFAULTS =
      new EngineSettings(64, 16_384, 256, 8_192, 0.01, TimingModel.DEFAULT);

  /** The KV capacity of the defaults in tokens, kept when the block size changes. */
  public static final long DEFAULT_KV_TOKENS = 16_384L * 64;

  public EngineSettings {
    positive("block size", blockSize);
    positive("num GPU blocks", numGpuBlocks);
    positive("max num seqs", maxNumSeqs);
    positive("max num batched tokens", maxNumBatchedTokens);
    if (!(watermark >= 0 && watermark < 1)) {
      throw new IllegalArgumentException("watermark must be in [0, 1): " + watermark);
    }
    if (timing == null) {
      throw new IllegalArgumentException("timing model is required");
    }
  }

  /** Blocks that hold {@link #DEFAULT_KV_TOKENS} at {@code blockSize}, at least 1. */
  public static int defaultBlocks(int blockSize) {
    positive("block size", blockSize);
    return (int) Math.max(1, DEFAULT_KV_TOKENS / blockSize);
  }

  /** Whether a request of this size can ever be admitted: its blocks within the watermark. */
  public boolean fits(long promptTokens, long maxOutputTokens) {
    return blocksFor(promptTokens + maxOutputTokens) <= admissionLimit();
  }

  /** Blocks that hold {@code tokens} tokens, the last one partly filled. */
  public long blocksFor(long tokens) {
    return (tokens + blockSize - 1) / blockSize;
  }

  /** Blocks a request may be admitted up to: {@code floor((1 − watermark) · numGpuBlocks)}. */
  public int admissionLimit() {
    return (int) Math.floor((1 - watermark) * numGpuBlocks);
  }

  private static void positive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(name + " must be >= 1: " + value);
    }
  }
}
