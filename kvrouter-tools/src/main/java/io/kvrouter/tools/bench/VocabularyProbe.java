package io.kvrouter.tools.bench;

import io.kvrouter.tools.bench.BenchSettings.TokenRange;
import io.vertx.core.Future;
import java.util.Optional;

/**
 * Picks the prompt token ids when none are given. A trace has no text, so the prompts are token
 * ids, which the router refuses outside its tokenizer's vocabulary; special tokens (BOS, EOS, chat
 * markers) are best avoided too, as a real engine treats them as control. The router tells neither
 * its vocabulary's size nor its special tokens, so the probe asks {@code POST /router/explain},
 * which checks a prompt without generating anything, whether single ids are taken:
 *
 * <ul>
 *   <li>id 32999 taken, or no answer either way (not a kvrouter): a model's vocabulary, so ids 1000
 *       to 32999. In every tokenizer family the project tests (Llama 3.x, Qwen 2.5 and 3, DeepSeek
 *       V3, Gemma 3, Mistral Nemo, gpt-oss) these are ordinary tokens: special ones sit below 1000
 *       (Tekken's 0 to 999, Gemma's up to 237) or above 33000;
 *   <li>else id 255 taken and 256 refused: the demo byte tokenizer, whose 256 ids are all ordinary;
 *   <li>else a small vocabulary it cannot place: the run fails, asking for {@code --token-range}.
 * </ul>
 */
final class VocabularyProbe {
  static final TokenRange MODEL_IDS = new TokenRange(1000, 32000);
  static final TokenRange BYTE_IDS = new TokenRange(0, 256);

  private VocabularyProbe() {}

  /** The ids chosen, and why, for the run's notes. */
  record Choice(TokenRange ids, String reason) {}

  static Future<Choice> choose(RouterApi api, String model) {
    return api.acceptsToken(model, MODEL_IDS.last())
        .compose(
            large -> {
              if (large.isEmpty()) {
                return Future.succeededFuture(
                    new Choice(MODEL_IDS, "the router does not say which ids it takes"));
              }
              if (large.get()) {
                return Future.succeededFuture(
                    new Choice(MODEL_IDS, "ordinary tokens of a model's vocabulary"));
              }
              Future<Optional<Boolean>> lastByte = api.acceptsToken(model, BYTE_IDS.last());
              Future<Optional<Boolean>> pastBytes = api.acceptsToken(model, BYTE_IDS.last() + 1);
              return Future.all(lastByte, pastBytes)
                  .map(
                      v -> {
                        if (lastByte.result().orElse(false) && !pastBytes.result().orElse(true)) {
                          return new Choice(BYTE_IDS, "the demo byte tokenizer's vocabulary");
                        }
                        throw new IllegalStateException(
                            "the router's vocabulary has fewer than "
                                + (MODEL_IDS.last() + 1)
                                + " ids and is not the demo tokenizer's 256; name prompt token ids"
                                + " that are ordinary tokens of "
                                + model
                                + " with --token-range FIRST:COUNT");
                      });
            });
  }
}
