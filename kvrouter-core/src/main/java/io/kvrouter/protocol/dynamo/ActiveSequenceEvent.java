package io.kvrouter.protocol.dynamo;

import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;

/**
 * One change to a router's books of requests in flight, as Dynamo's router replicas share them
 * ({@code ActiveSequenceEvent}, {@code docs/notes/dynamo-replica-sync.md} §2): a request booked on
 * a worker rank, its prefill done, or freed. The wire form is {@link ActiveSequenceEventCodec}'s.
 *
 * @param requestId the request's id at the router that booked it
 * @param worker the rank it is booked on; its worker id is a u64 in decimal on the wire
 * @param data what happened
 * @param routerId who sent it (a u64 in a {@code long}): a router's instance id, or a worker's id
 *     for the prefill marks workers send
 * @param stride the sender's active-sequence sampling stride, {@code null} for 1 (one branch of
 *     Dynamo sends it; a receiver ignores events of another stride)
 * @param loraName the request's LoRA adapter, or {@code null}
 */
public record ActiveSequenceEvent(
    String requestId,
    WorkerRank worker,
    Data data,
    long routerId,
    Integer stride,
    String loraName) {

  public ActiveSequenceEvent {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(data, "data");
    if (stride != null && stride < 1) {
      throw new IllegalArgumentException("stride must be >= 1: " + stride);
    }
  }

  /** What happened to the request. */
  public sealed interface Data permits AddRequest, Free, MarkPrefillCompleted {}

  /**
   * The request was booked.
   *
   * @param tokenSequence the sequence hashes of its prompt's blocks (u64 each), or {@code null}
   * @param trackPrefillTokens whether its prefill load counts on the rank (true when absent)
   * @param expectedOutputTokens the output it is expected to produce (u32), or {@code null}
   * @param prefillLoadHint its prefill load, or {@code null}
   */
  public record AddRequest(
      long[] tokenSequence,
      boolean trackPrefillTokens,
      Long expectedOutputTokens,
      PrefillLoadHint prefillLoadHint)
      implements Data {
    public AddRequest {
      tokenSequence = tokenSequence == null ? null : tokenSequence.clone();
      if (expectedOutputTokens != null
          && (expectedOutputTokens < 0 || expectedOutputTokens > 0xFFFF_FFFFL)) {
        throw new IllegalArgumentException(
            "expectedOutputTokens must fit a u32: " + expectedOutputTokens);
      }
    }

    @Override
    public long[] tokenSequence() {
      return tokenSequence == null ? null : tokenSequence.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof AddRequest other
          && Arrays.equals(tokenSequence, other.tokenSequence)
          && trackPrefillTokens == other.trackPrefillTokens
          && Objects.equals(expectedOutputTokens, other.expectedOutputTokens)
          && Objects.equals(prefillLoadHint, other.prefillLoadHint);
    }

    @Override
    public int hashCode() {
      return Objects.hash(
          Arrays.hashCode(tokenSequence),
          trackPrefillTokens,
          expectedOutputTokens,
          prefillLoadHint);
    }

    @Override
    public String toString() {
      return "AddRequest[tokenSequence="
          + (tokenSequence == null ? "null" : tokenSequence.length + " hashes")
          + ", trackPrefillTokens="
          + trackPrefillTokens
          + ", expectedOutputTokens="
          + expectedOutputTokens
          + ", prefillLoadHint="
          + prefillLoadHint
          + "]";
    }
  }

  /** The request ended, failed or was cancelled. */
  public enum Free implements Data {
    INSTANCE
  }

  /** The request's first token arrived: its prefill load is gone. */
  public enum MarkPrefillCompleted implements Data {
    INSTANCE
  }

  /**
   * A request's prefill load.
   *
   * @param initialEffectivePrefillTokens the tokens left to prefill when it was booked (u64)
   * @param expectedPrefillDuration how long that prefill should take, or {@code null}; the load
   *     decays over it
   */
  public record PrefillLoadHint(
      long initialEffectivePrefillTokens, Duration expectedPrefillDuration) {
    public PrefillLoadHint {
      if (expectedPrefillDuration != null && expectedPrefillDuration.isNegative()) {
        throw new IllegalArgumentException(
            "expectedPrefillDuration must not be negative: " + expectedPrefillDuration);
      }
    }
  }
}
