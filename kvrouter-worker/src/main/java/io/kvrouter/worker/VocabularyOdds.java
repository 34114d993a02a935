package io.kvrouter.worker;

import java.util.HashMap;
import java.util.Map;

/**
 * The log-probability of each id under the simulated engine's uniform draw from its vocabulary's
 * entries: an id listed {@code c} times of {@code n} entries has {@code ln(c / n)}. Counted once
 * per engine, so answering logprobs costs a map lookup per token on the event loop, not a scan of
 * the vocabulary.
 */
final class VocabularyOdds {
  private final int entries;

  /** Ids listed more than once, with their counts; every other id is listed once. */
  private final Map<Integer, Integer> repeated = new HashMap<>();

  VocabularyOdds(int[] vocabulary) {
    this.entries = vocabulary.length;
    Map<Integer, Integer> counts = new HashMap<>();
    for (int id : vocabulary) {
      counts.merge(id, 1, Integer::sum);
    }
    counts.forEach(
        (id, count) -> {
          if (count > 1) {
            repeated.put(id, count);
          }
        });
  }

  double logprob(int id) {
    return Math.log((double) repeated.getOrDefault(id, 1) / entries);
  }
}
