package io.kvrouter.tools.trace;

import java.util.Arrays;

/**
 * One request of a trace.
 *
 * @param index its position in the trace, from 0
 * @param arrivalMillis when it arrives, in ms from the start of the trace
 * @param inputTokens prompt length in tokens
 * @param outputTokens tokens to generate
 * @param hashIds the trace's prefix block ids, {@link MooncakeTrace#TRACE_BLOCK_TOKENS} tokens each
 *     (the last may be partial); equal ids at the same position are a shared prefix
 */
public record TraceRequest(
    int index, double arrivalMillis, int inputTokens, int outputTokens, long[] hashIds) {

  public TraceRequest {
    if (arrivalMillis < 0 || Double.isNaN(arrivalMillis)) {
      throw new IllegalArgumentException("timestamp must be >= 0: " + arrivalMillis);
    }
    if (inputTokens < 1) {
      throw new IllegalArgumentException("input_length must be >= 1: " + inputTokens);
    }
    if (outputTokens < 1) {
      throw new IllegalArgumentException("output_length must be >= 1: " + outputTokens);
    }
    hashIds = hashIds.clone();
  }

  @Override
  public long[] hashIds() {
    return hashIds.clone();
  }

  /** The id of trace block {@code i}, without a copy. */
  public long hashId(int i) {
    return hashIds[i];
  }

  /** This request arriving {@code factor} times sooner: arrivals scaled by {@code 1/factor}. */
  public TraceRequest withRateScale(double factor) {
    return new TraceRequest(index, arrivalMillis / factor, inputTokens, outputTokens, hashIds);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TraceRequest other
        && index == other.index
        && arrivalMillis == other.arrivalMillis
        && inputTokens == other.inputTokens
        && outputTokens == other.outputTokens
        && Arrays.equals(hashIds, other.hashIds);
  }

  @Override
  public int hashCode() {
    return 31 * index + Arrays.hashCode(hashIds);
  }

  @Override
  public String toString() {
    return "TraceRequest[#"
        + index
        + " at "
        + arrivalMillis
        + " ms, "
        + inputTokens
        + " in, "
        + outputTokens
        + " out, "
        + hashIds.length
        + " blocks]";
  }
}
