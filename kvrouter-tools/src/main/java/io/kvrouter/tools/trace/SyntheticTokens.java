package io.kvrouter.tools.trace;

import io.kvrouter.common.SplitMix;

/**
 * The prompt tokens a trace request stands for. A trace gives no text, only the ids of its {@value
 * MooncakeTrace#TRACE_BLOCK_TOKENS}-token prefix blocks, so each id is expanded into that many
 * token ids drawn from the id alone: equal ids give equal tokens, and so equal KV blocks at any
 * block size that divides or is a multiple of 512. Token ids fall in {@code [firstId, firstId +
 * idCount)}, a range the caller picks to avoid a vocabulary's special tokens.
 */
public final class SyntheticTokens {
  private final int firstId;
  private final int idCount;

  public SyntheticTokens(int firstId, int idCount) {
    if (firstId < 0 || idCount < 1 || (long) firstId + idCount > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(
          "token id range [" + firstId + ", " + firstId + " + " + idCount + ") is not valid");
    }
    this.firstId = firstId;
    this.idCount = idCount;
  }

  /** The {@code inputTokens} prompt tokens of {@code request}. */
  public int[] prompt(TraceRequest request) {
    int length = request.inputTokens();
    int[] tokens = new int[length];
    for (int position = 0; position < length; position++) {
      int block = position / MooncakeTrace.TRACE_BLOCK_TOKENS;
      int offset = position % MooncakeTrace.TRACE_BLOCK_TOKENS;
      tokens[position] = token(request.hashId(block), offset);
    }
    return tokens;
  }

  private int token(long hashId, int offset) {
    long mixed = SplitMix.mix(hashId * MooncakeTrace.TRACE_BLOCK_TOKENS + offset);
    return firstId + (int) Long.remainderUnsigned(mixed, idCount);
  }
}
