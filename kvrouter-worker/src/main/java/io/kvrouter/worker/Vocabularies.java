package io.kvrouter.worker;

import java.nio.charset.StandardCharsets;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

/** Token ids a simulated engine draws its output from. */
public final class Vocabularies {
  private Vocabularies() {}

  /**
   * For the demo tokenizer (token id = UTF-8 byte): lower-case letters with spaces weighted in, so
   * output reads as words.
   */
  public static int[] demo() {
    byte[] bytes = "abcdefghijklmnopqrstuvwxyz     ".getBytes(StandardCharsets.US_ASCII);
    return IntStream.range(0, bytes.length).map(i -> bytes[i]).toArray();
  }

  /** Ids {@code 0..size-1} of a real vocabulary, without the ones {@code excluded} rejects. */
  public static int[] range(int size, IntPredicate excluded) {
    return IntStream.range(0, size).filter(excluded.negate()).toArray();
  }
}
