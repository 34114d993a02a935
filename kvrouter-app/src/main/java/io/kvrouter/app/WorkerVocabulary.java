package io.kvrouter.app;

import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.worker.Vocabularies;

/** The token ids a simulated worker draws from: readable demo text, or a model's normal tokens. */
final class WorkerVocabulary {
  private WorkerVocabulary() {}

  static int[] of(ModelAssets assets) {
    Tokenizer tokenizer = assets.tokenizer();
    if (tokenizer == Tokenizer.bytes()) {
      return Vocabularies.demo();
    }
    return Vocabularies.range(tokenizer.vocabularySize(), tokenizer::isSpecial);
  }
}
