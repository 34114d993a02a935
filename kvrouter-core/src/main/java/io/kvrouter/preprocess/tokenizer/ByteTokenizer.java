package io.kvrouter.preprocess.tokenizer;

import java.nio.ByteBuffer;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * The demo tokenizer: one token per UTF-8 byte, ids 0 to 255, no special tokens. Decoding turns the
 * bytes back into text and replaces malformed sequences with U+FFFD. Stateless, so safe from any
 * thread.
 */
final class ByteTokenizer implements Tokenizer {

  static final ByteTokenizer INSTANCE = new ByteTokenizer();

  private ByteTokenizer() {}

  @Override
  public int[] encode(String text, boolean addSpecialTokens) {
    // no special tokens, so none to add
    Objects.requireNonNull(text, "text");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    int[] ids = new int[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      ids[i] = bytes[i] & 0xFF;
    }
    return ids;
  }

  @Override
  public String decode(int[] ids, int from, int to, boolean skipSpecialTokens) {
    Objects.checkFromToIndex(from, to, ids.length);
    byte[] bytes = new byte[to - from];
    for (int i = from; i < to; i++) {
      int id = ids[i];
      if (id < 0 || id > 255) {
        throw new IllegalArgumentException(
            "token id " + id + " is outside the byte tokenizer's vocabulary [0, 256)");
      }
      bytes[i - from] = (byte) id;
    }
    try {
      // A fresh decoder per call: CharsetDecoder is not thread-safe.
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .replaceWith("\uFFFD")
          .decode(ByteBuffer.wrap(bytes))
          .toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw new IllegalStateException("UTF-8 decoding with REPLACE cannot fail", e);
    }
  }

  @Override
  public boolean isSpecial(int id) {
    return false;
  }

  @Override
  public Optional<Integer> tokenId(String token) {
    return Optional.empty();
  }

  @Override
  public int vocabularySize() {
    return 256;
  }

  @Override
  public String toString() {
    return "ByteTokenizer";
  }
}
