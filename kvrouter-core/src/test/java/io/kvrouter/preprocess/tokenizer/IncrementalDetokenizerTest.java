package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class IncrementalDetokenizerTest {

  static final List<String> TEXTS =
      List.of(
          "Hello, my dog is cute. 你好世界 🙂",
          "e\u0301 a\u0308\u0301 combining marks; 👩‍💻 ZWJ; 🇫🇷🇯🇵 flags; 👍🏽 skin tone",
          "日本語のテキストと中文文本，混合 English words 和 emoji 🎉🎉🎉",
          "<|im_start|>assistant\n<think>\nreasoning 🤔\n</think>\n\nAnswer: 42<|im_end|>",
          "  leading spaces, trailing spaces  \n\n\ttabs\r\nCRLF \u00a0nbsp \u2028 line sep",
          "\uD83D\uDE00\uD83D\uDE01\uD83D\uDE02 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕄𝕒𝕥𝕙 ∑∫√ 𐍈 gothic");

  static Tokenizer qwen3;
  static Tokenizer llama3;

  @BeforeAll
  static void load() {
    qwen3 = TestModels.tokenizer("qwen3");
    llama3 = TestModels.tokenizer("llama3");
  }

  @Test
  void byteTokenizerEveryChunkSizeEqualsFullDecode() {
    Tokenizer tok = Tokenizer.bytes();
    for (String text : TEXTS) {
      int[] ids = tok.encode(text);
      for (int chunk = 1; chunk <= 9; chunk++) {
        assertThat(streamInChunks(tok, ids, chunk, false))
            .as("chunk %d of %s", chunk, text)
            .isEqualTo(text);
      }
    }
  }

  @Test
  void neverEmitsABrokenCharacter() {
    Tokenizer tok = Tokenizer.bytes();
    for (String text : TEXTS) {
      IncrementalDetokenizer d = new IncrementalDetokenizer(tok, false);
      for (int id : tok.encode(text)) {
        String piece = d.add(id);
        assertThat(piece).doesNotContain("\uFFFD");
        if (!piece.isEmpty()) {
          assertThat(Character.isHighSurrogate(piece.charAt(piece.length() - 1))).isFalse();
          assertThat(Character.isLowSurrogate(piece.charAt(0))).isFalse();
        }
      }
      assertThat(d.finish()).doesNotContain("\uFFFD");
    }
  }

  @Test
  void randomSplitsEqualFullDecodeForAllTokenizers() {
    Random random = new Random(20261122);
    for (Tokenizer tok : List.of(Tokenizer.bytes(), qwen3, llama3)) {
      for (String base : TEXTS) {
        int[] ids = tok.encode(base);
        for (boolean skip : new boolean[] {false, true}) {
          String expected = tok.decode(ids, skip);
          for (int trial = 0; trial < 40; trial++) {
            assertThat(streamRandomly(tok, ids, random, skip))
                .as("%s skip=%s trial %d: %s", tok, skip, trial, base)
                .isEqualTo(expected);
          }
        }
      }
    }
  }

  @Test
  void randomTextsRandomSplits() {
    Random random = new Random(99);
    for (Tokenizer tok : List.of(Tokenizer.bytes(), qwen3, llama3)) {
      for (int trial = 0; trial < 60; trial++) {
        String text = HfTokenizerTest.longText(random, 20 + random.nextInt(400));
        int[] ids = tok.encode(text);
        assertThat(streamRandomly(tok, ids, random, false))
            .isEqualTo(tok.decode(ids))
            .isEqualTo(text);
      }
    }
  }

  @Test
  void charactersSplitAcrossModelTokensAreHeldUntilComplete() {
    // Rare CJK and emoji are several byte-level tokens each in these vocabularies.
    for (Tokenizer tok : List.of(qwen3, llama3)) {
      String text = "𝔘🦜𓀀";
      int[] ids = tok.encode(text);
      assertThat(ids.length).as("%s splits the characters into bytes", tok).isGreaterThan(3);
      IncrementalDetokenizer d = new IncrementalDetokenizer(tok, false);
      StringBuilder out = new StringBuilder();
      for (int id : ids) {
        String piece = d.add(id);
        assertThat(piece).doesNotContain("\uFFFD");
        out.append(piece);
      }
      out.append(d.finish());
      assertThat(out.toString()).isEqualTo(text);
    }
  }

  @Test
  void longRunsOfByteFallbackTokensStreamLikeAFullDecode() throws IOException {
    // Gemma has no token for these hieroglyphs: each is four "<0xXX>" byte-fallback tokens, so the
    // text is one unbroken run of them. The Rust decoder turns a run that is not valid UTF-8 as a
    // whole into one U+FFFD per token, so a window starting inside a character, or a clean boundary
    // found behind an incomplete one, would garble the characters after it.
    String text =
        IntStream.range(0x13000, 0x13000 + 30)
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    try (Tokenizer gemma = Tokenizer.huggingFace(TestModels.tokenizerJson("gemma3"))) {
      int[] ids = gemma.encode(text);
      assertThat(ids).hasSize(4 * 30);
      for (int chunk = 1; chunk <= 9; chunk++) {
        assertThat(streamInChunks(gemma, ids, chunk, false)).as("chunk %d", chunk).isEqualTo(text);
      }
      Random random = new Random(3);
      for (int trial = 0; trial < 20; trial++) {
        assertThat(streamRandomly(gemma, ids, random, false)).isEqualTo(text);
      }
    }
  }

  @Test
  void completeTextIsEmittedAtOnceEvenWhenEveryChunkEndsMidCharacter() {
    Tokenizer tok = Tokenizer.bytes();
    // one ASCII byte, then 3-byte CJK characters fed in chunks of 3: every chunk ends inside one
    String text = "x" + "你好世界模型".repeat(200);
    int[] ids = tok.encode(text);
    WindowRecorder rec = new WindowRecorder(tok);
    IncrementalDetokenizer d = new IncrementalDetokenizer(rec, false);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < ids.length; i += 3) {
      int end = Math.min(ids.length, i + 3);
      out.append(d.add(ids, i, end));
      String sofar = tok.decode(ids, 0, end, false);
      String complete = sofar.endsWith("\uFFFD") ? sofar.substring(0, sofar.length() - 1) : sofar;
      assertThat(out.toString()).isEqualTo(complete);
    }
    out.append(d.finish());
    assertThat(out.toString()).isEqualTo(text);
    assertThat(rec.maxWindow)
        .isLessThanOrEqualTo(
            IncrementalDetokenizer.MAX_PREFIX_TOKENS + IncrementalDetokenizer.MAX_HELD_TOKENS + 3);
  }

  @Test
  void finishFlushesAnIncompleteCharacterAsAFullDecodeWould() {
    Tokenizer tok = Tokenizer.bytes();
    int[] ids = {'o', 'k', 0xF0, 0x9F}; // "ok" then half an emoji
    IncrementalDetokenizer d = new IncrementalDetokenizer(tok, false);
    StringBuilder out = new StringBuilder();
    for (int id : ids) {
      out.append(d.add(id));
    }
    assertThat(out.toString()).isEqualTo("ok");
    out.append(d.finish());
    assertThat(out.toString()).isEqualTo(tok.decode(ids)).endsWith("\uFFFD");
    assertThat(d.finish()).isEmpty();
    assertThatThrownBy(() -> d.add(65)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void invalidUtf8IsEmittedAfterABoundedWait() {
    Tokenizer tok = Tokenizer.bytes();
    int[] ids = new int[200];
    Arrays.fill(ids, 0xFF);
    WindowRecorder rec = new WindowRecorder(tok);
    IncrementalDetokenizer d = new IncrementalDetokenizer(rec, false);
    StringBuilder out = new StringBuilder();
    int emittedBeforeEnd = 0;
    for (int id : ids) {
      String piece = d.add(id);
      emittedBeforeEnd += piece.length();
      out.append(piece);
    }
    out.append(d.finish());
    assertThat(emittedBeforeEnd).isGreaterThan(150);
    assertThat(out.toString()).isEqualTo(tok.decode(ids));
    assertThat(rec.maxWindow)
        .isLessThanOrEqualTo(
            IncrementalDetokenizer.MAX_PREFIX_TOKENS + IncrementalDetokenizer.MAX_HELD_TOKENS + 1);
  }

  @Test
  void perStepWorkDoesNotGrowWithTheOutput() {
    WindowRecorder rec = new WindowRecorder(qwen3);
    String text = HfTokenizerTest.longText(new Random(5), 60_000);
    int[] ids = qwen3.encode(text);
    IncrementalDetokenizer d = new IncrementalDetokenizer(rec, false);
    StringBuilder out = new StringBuilder();
    for (int id : ids) {
      out.append(d.add(id));
    }
    out.append(d.finish());
    assertThat(out.toString()).isEqualTo(text);
    assertThat(ids.length).isGreaterThan(10_000);
    // one new id per step: the window is the capped prefix plus held ids plus the new one
    assertThat(rec.maxWindow)
        .isLessThanOrEqualTo(
            IncrementalDetokenizer.MAX_PREFIX_TOKENS + IncrementalDetokenizer.MAX_HELD_TOKENS + 1);
    assertThat(rec.calls).isLessThanOrEqualTo(2L * ids.length + 2);
  }

  @Test
  void skippedSpecialTokensEmitNothing() {
    int[] ids = qwen3.encode("<|im_start|>assistant\nHi<|im_end|>");
    IncrementalDetokenizer d = new IncrementalDetokenizer(qwen3, true);
    StringBuilder out = new StringBuilder();
    for (int id : ids) {
      out.append(d.add(id));
    }
    assertThat(d.add(ids, 0, 0)).isEmpty();
    out.append(d.finish());
    assertThat(out.toString()).isEqualTo("assistant\nHi");
  }

  private static String streamInChunks(Tokenizer tok, int[] ids, int chunk, boolean skip) {
    IncrementalDetokenizer d = new IncrementalDetokenizer(tok, skip);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < ids.length; i += chunk) {
      out.append(d.add(ids, i, Math.min(ids.length, i + chunk)));
    }
    return out.append(d.finish()).toString();
  }

  private static String streamRandomly(Tokenizer tok, int[] ids, Random random, boolean skip) {
    IncrementalDetokenizer d = new IncrementalDetokenizer(tok, skip);
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < ids.length) {
      int n = random.nextInt(4) == 0 ? 1 + random.nextInt(12) : 1 + random.nextInt(3);
      int end = Math.min(ids.length, i + n);
      out.append(d.add(ids, i, end));
      i = end;
    }
    return out.append(d.finish()).toString();
  }

  /** Records the largest range the detokenizer asks to decode. */
  private static final class WindowRecorder extends EncodingDecorator {
    int maxWindow;
    long calls;

    WindowRecorder(Tokenizer delegate) {
      super(delegate);
    }

    @Override
    public int[] encode(String text, boolean addSpecialTokens) {
      return delegate.encode(text, addSpecialTokens);
    }

    @Override
    public String decode(int[] ids, int from, int to, boolean skipSpecialTokens) {
      maxWindow = Math.max(maxWindow, to - from);
      calls++;
      return delegate.decode(ids, from, to, skipSpecialTokens);
    }
  }
}
