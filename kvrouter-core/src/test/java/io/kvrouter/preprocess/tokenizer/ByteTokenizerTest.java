package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ByteTokenizerTest {

  private final Tokenizer tok = Tokenizer.bytes();

  @Test
  void idsAreTheUtf8Bytes() {
    assertThat(tok.encode("Hé🙂")).containsExactly(0x48, 0xC3, 0xA9, 0xF0, 0x9F, 0x99, 0x82);
    assertThat(tok.encode("")).isEmpty();
    assertThat(tok.vocabularySize()).isEqualTo(256);
  }

  @Test
  void roundTripsAnyText() {
    String[] texts = {
      "",
      "plain ascii",
      "<|im_start|>user\nHello, my dog is cute. 你好世界 🙂<|im_end|>\n",
      "e\u0301 combining, 👩‍💻 zwj, 🇫🇷 flag, \u0000 nul, \uD800\uDC00 pair",
    };
    for (String text : texts) {
      int[] ids = tok.encode(text);
      assertThat(java.util.Arrays.stream(ids).allMatch(id -> id >= 0 && id < 256)).isTrue();
      assertThat(tok.decode(ids)).isEqualTo(text);
      assertThat(tok.decode(ids, true)).isEqualTo(text);
    }
  }

  @Test
  void decodesARangeWithoutCopyingTheCallerArray() {
    int[] ids = tok.encode("abc你好def");
    assertThat(tok.decode(ids, 3, 9, false)).isEqualTo("你好");
    assertThat(tok.decode(ids, 0, 0, false)).isEmpty();
    assertThatThrownBy(() -> tok.decode(ids, 5, ids.length + 1, false))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void malformedBytesBecomeReplacementCharacters() {
    byte[] emoji = "🙂".getBytes(StandardCharsets.UTF_8);
    // first two bytes of a four-byte character
    assertThat(tok.decode(new int[] {'a', emoji[0] & 0xFF, emoji[1] & 0xFF}))
        .startsWith("a")
        .endsWith("\uFFFD")
        .doesNotContain("🙂");
    assertThat(tok.decode(new int[] {0xFF, 'b'})).isEqualTo("\uFFFDb");
  }

  @Test
  void rejectsIdsOutsideTheVocabulary() {
    assertThatThrownBy(() -> tok.decode(new int[] {65, 256}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("256");
    assertThatThrownBy(() -> tok.decode(new int[] {-1}))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void hasNoSpecialTokens() {
    assertThat(tok.isSpecial(0)).isFalse();
    assertThat(tok.tokenId("<|im_end|>")).isEmpty();
    assertThat(tok.encode("<|im_end|>")).hasSize("<|im_end|>".length());
  }
}
