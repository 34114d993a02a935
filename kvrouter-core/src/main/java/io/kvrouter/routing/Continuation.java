package io.kvrouter.routing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.PreprocessedRequest;
import java.util.Arrays;

/**
 * One request's progress, kept for {@link Migration}: the tokens its workers have generated so far,
 * from which the request to send to the next worker is built. That request is the original one with
 * the generated tokens appended to {@code token_ids}, and {@code max_tokens} and {@code min_tokens}
 * lowered by their count (never below 0), as Dynamo's {@code RetryManager} builds it. Tokens are
 * kept only while a migration is left, so a request that can no longer move holds nothing. Not
 * thread-safe: its owner serializes the calls.
 */
final class Continuation {
  private final PreprocessedRequest original;
  private int migrationsLeft;
  private int[] generated = new int[0];
  private int count;
  private boolean finished;

  Continuation(PreprocessedRequest original, int migrations) {
    this.original = original;
    this.migrationsLeft = migrations;
  }

  /** Notes an output the caller received. */
  void record(EngineOutput output) {
    if (output.finishReason() != null) {
      finished = true;
    }
    if (migrationsLeft == 0) {
      return;
    }
    int[] tokens = output.tokenIds();
    if (count + tokens.length > generated.length) {
      generated = Arrays.copyOf(generated, Math.max(16, 2 * (count + tokens.length)));
    }
    System.arraycopy(tokens, 0, generated, count, tokens.length);
    count += tokens.length;
  }

  /**
   * Whether the request may continue elsewhere: a migration is left and no output has ended it
   * (after a finish reason there is nothing left to generate).
   */
  boolean canMigrate() {
    return migrationsLeft > 0 && !finished;
  }

  /** Whether the request has generated all of its {@code max_tokens}. */
  boolean budgetSpent() {
    Integer maxTokens = original.stopConditions().maxTokens();
    return maxTokens != null && count >= maxTokens;
  }

  /** Tokens generated so far (counted only while a migration was left). */
  int generatedTokens() {
    return count;
  }

  /** Takes one migration and returns the request that continues this one on another worker. */
  PreprocessedRequest next() {
    if (!canMigrate()) {
      throw new IllegalStateException("no migration left");
    }
    migrationsLeft--;
    int[] prompt = original.tokenIds();
    int[] tokens = Arrays.copyOf(prompt, prompt.length + count);
    System.arraycopy(generated, 0, tokens, prompt.length, count);
    PreprocessedRequest.StopConditions stop = original.stopConditions();
    return new PreprocessedRequest(
        original.model(),
        tokens,
        new PreprocessedRequest.StopConditions(
            lowered(stop.maxTokens()),
            stop.stop(),
            stop.stopTokenIds(),
            lowered(stop.minTokens()),
            stop.ignoreEos()),
        original.samplingOptions(),
        original.outputOptions(),
        original.eosTokenIds(),
        original.annotations(),
        original.routing(),
        original.clientRequestId());
  }

  private Integer lowered(Integer limit) {
    return limit == null ? null : Math.max(0, limit - count);
  }
}
