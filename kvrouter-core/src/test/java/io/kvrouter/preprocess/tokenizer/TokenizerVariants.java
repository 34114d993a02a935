package io.kvrouter.preprocess.tokenizer;

import java.io.IOException;
import java.nio.file.Path;

/** Tokenizers as benchmarks compare them: the Rust library alone, or as the router loads it. */
public final class TokenizerVariants {
  private TokenizerVariants() {}

  /**
   * @param encoder {@code rust}: DJL's binding of the Rust library for everything; {@code java}: as
   *     {@link Tokenizer#huggingFace(Path, long)} loads it, without the piece cache
   */
  public static Tokenizer load(Path tokenizerJson, String encoder) throws IOException {
    return switch (encoder) {
      case "rust" -> HfTokenizer.load(tokenizerJson);
      case "java" -> Tokenizer.huggingFace(tokenizerJson, 0);
      default -> throw new IllegalArgumentException("encoder " + encoder);
    };
  }
}
