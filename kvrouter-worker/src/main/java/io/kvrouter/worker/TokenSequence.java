package io.kvrouter.worker;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The tokens a simulated engine outputs for one request. The random source is seeded from the
 * request's sampling seed, or else from its prompt, so the same request always gives the same
 * output. Without {@code max_tokens} the output ends with end-of-sequence after 16 to 64 tokens.
 */
final class TokenSequence {
  private static final int MIN_DEFAULT_LENGTH = 16;
  static final int MAX_DEFAULT_LENGTH = 64;

  /** One step: a token to emit (or -1 for none) and the finish reason if the sequence ends. */
  record Step(int token, FinishReason finish) {}

  private final int[] vocabulary;
  private final VocabularyOdds odds;
  private final SplittableRandom random;
  private final int limit;
  private final boolean limitIsMaxTokens;
  private final List<Integer> stopTokenIds;
  private final List<Integer> eosTokenIds;
  private final int minTokens;

  /** Alternatives per position when the request asked for logprobs, else null. */
  private final Integer logprobs;

  private int emitted;

  TokenSequence(PreprocessedRequest request, int[] vocabulary, VocabularyOdds odds) {
    this.vocabulary = vocabulary;
    this.odds = odds;
    Long seed = request.samplingOptions().seed();
    this.random =
        new SplittableRandom(
            seed != null ? seed : 0x9E3779B97F4A7C15L * Arrays.hashCode(request.tokenIds()));
    PreprocessedRequest.StopConditions stop = request.stopConditions();
    Integer maxTokens = stop.maxTokens();
    this.limitIsMaxTokens = maxTokens != null;
    this.limit =
        maxTokens != null ? maxTokens : random.nextInt(MIN_DEFAULT_LENGTH, MAX_DEFAULT_LENGTH + 1);
    this.stopTokenIds = stop.stopTokenIds() == null ? List.of() : stop.stopTokenIds();
    this.eosTokenIds = Boolean.TRUE.equals(stop.ignoreEos()) ? List.of() : request.eosTokenIds();
    this.minTokens = stop.minTokens() == null ? 0 : stop.minTokens();
    this.logprobs = request.outputOptions().logprobs();
  }

  /**
   * {@code output} with logprobs when the request asked for them ({@link VocabularyOdds}); the
   * alternatives are the drawn token (rank 1) and other ids of the vocabulary.
   */
  EngineOutput withLogprobs(EngineOutput output) {
    if (logprobs == null || output.tokenIds().length == 0) {
      return output;
    }
    List<Double> logProbs = new ArrayList<>();
    List<List<EngineOutput.TopLogprob>> top = new ArrayList<>();
    for (int token : output.tokenIds()) {
      logProbs.add(odds.logprob(token));
      List<EngineOutput.TopLogprob> alternatives = new ArrayList<>();
      alternatives.add(new EngineOutput.TopLogprob(1, token, null, odds.logprob(token)));
      int start = Math.floorMod(token * 31, vocabulary.length);
      for (int i = 0; i < vocabulary.length && alternatives.size() < logprobs; i++) {
        int id = vocabulary[(start + i) % vocabulary.length];
        if (alternatives.stream().noneMatch(alt -> alt.tokenId() == id)) {
          alternatives.add(
              new EngineOutput.TopLogprob(alternatives.size() + 1, id, null, odds.logprob(id)));
        }
      }
      top.add(alternatives);
    }
    return output.withLogprobs(logProbs, top);
  }

  /** Most tokens this sequence emits: {@code max_tokens}, or the drawn default length. */
  int limit() {
    return limit;
  }

  Step next() {
    if (emitted >= limit) {
      return new Step(-1, FinishReason.LENGTH);
    }
    int token = vocabulary[random.nextInt(vocabulary.length)];
    if (emitted >= minTokens) {
      if (stopTokenIds.contains(token)) {
        return new Step(-1, FinishReason.STOP);
      }
      if (eosTokenIds.contains(token)) {
        return new Step(-1, FinishReason.EOS);
      }
    }
    emitted++;
    if (emitted == limit) {
      return new Step(token, limitIsMaxTokens ? FinishReason.LENGTH : FinishReason.EOS);
    }
    return new Step(token, null);
  }
}
