package io.kvrouter.preprocess.tokenizer;

import java.util.Objects;

/**
 * Encodes prompts with our own byte-level BPE ({@link ByteLevelBpe}) and leaves the rest to the
 * Rust tokenizer: decoding, and encoding with special tokens added (a post-processor's work). Same
 * ids, several times faster: DJL's native encode computes offsets and per-token strings for every
 * call, about 4 µs per token here, where the Java encoder spends well under 1 µs. {@code
 * ByteLevelBpeTest} and the tokenization goldens hold it to the Rust library's ids.
 */
final class JavaBpeTokenizer extends EncodingDecorator {
  private final ByteLevelBpe bpe;
  private volatile boolean closed;

  JavaBpeTokenizer(Tokenizer rust, ByteLevelBpe bpe) {
    super(rust);
    this.bpe = Objects.requireNonNull(bpe, "bpe");
  }

  @Override
  public int[] encode(String text, boolean addSpecialTokens) {
    Objects.requireNonNull(text, "text");
    if (closed) {
      throw new IllegalStateException("tokenizer is closed");
    }
    return addSpecialTokens ? delegate.encode(text, true) : bpe.encode(text);
  }

  @Override
  public void close() {
    closed = true;
    super.close();
  }

  @Override
  public String toString() {
    return "JavaBpe[" + delegate + "]";
  }
}
