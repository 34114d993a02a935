package io.kvrouter.preprocess.tokenizer;

import java.util.Objects;
import java.util.Optional;

/**
 * A tokenizer that changes how text is encoded and passes everything else (decoding, special
 * tokens, the vocabulary, closing) to the tokenizer it wraps.
 */
abstract class EncodingDecorator implements Tokenizer {
  final Tokenizer delegate;

  EncodingDecorator(Tokenizer delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  @Override
  public String decode(int[] ids, int from, int to, boolean skipSpecialTokens) {
    return delegate.decode(ids, from, to, skipSpecialTokens);
  }

  @Override
  public boolean isSpecial(int id) {
    return delegate.isSpecial(id);
  }

  @Override
  public Optional<Integer> tokenId(String token) {
    return delegate.tokenId(token);
  }

  @Override
  public int vocabularySize() {
    return delegate.vocabularySize();
  }

  @Override
  public void close() {
    delegate.close();
  }
}
