package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HfTokenizerTest {

  static final String CHAT =
      "<|im_start|>user\nHello, my dog is cute. 你好世界 🙂<|im_end|>\n<|im_start|>assistant\n";

  static Tokenizer qwen3;
  static Tokenizer llama3;

  @BeforeAll
  static void load() {
    qwen3 = TestModels.tokenizer("qwen3");
    llama3 = TestModels.tokenizer("llama3");
  }

  @Test
  void qwen3IdsMatchTheReferenceTokenizer() {
    assertThat(qwen3.encode(CHAT))
        .containsExactly(
            151644, 872, 198, 9707, 11, 847, 5562, 374, 18838, 13, 220, 108386, 99489, 27484,
            151645, 198, 151644, 77091, 198);
  }

  @Test
  void addsNoSpecialTokensByItself() {
    // Llama 3's post-processor would prepend <|begin_of_text|> (128000) with add_special_tokens
    int[] ids = llama3.encode("Hello");
    assertThat(ids).hasSize(1).doesNotContain(128000);
    assertThat(llama3.encode("")).isEmpty();
    assertThat(llama3.encode("<|begin_of_text|>Hello")).startsWith(128000);
  }

  @Test
  void decodeKeepsOrSkipsSpecialTokens() {
    int[] ids = qwen3.encode(CHAT);
    assertThat(qwen3.decode(ids)).isEqualTo(CHAT);
    assertThat(qwen3.decode(ids, true))
        .isEqualTo("user\nHello, my dog is cute. 你好世界 🙂\nassistant\n");
    assertThat(qwen3.decode(ids, 3, 14, false)).isEqualTo("Hello, my dog is cute. 你好世界 🙂");
  }

  @Test
  void decodeIsTheRawRustDecodeWithoutPythonCleanup() {
    // llama3's tokenizer_config.json sets clean_up_tokenization_spaces=true; the Rust library (and
    // Dynamo) ignore it, and so do we: " ," and " 's" stay as they are.
    String text = "Hello , world . It 's fine";
    assertThat(llama3.decode(llama3.encode(text))).isEqualTo(text);
  }

  @Test
  void qwen3NormalizesToNfcLikeTheRustLibrary() {
    // Qwen2's tokenizer.json has an NFC normalizer; Llama 3's has none
    assertThat(qwen3.decode(qwen3.encode("e\u0301"))).isEqualTo("\u00e9");
    assertThat(llama3.decode(llama3.encode("e\u0301"))).isEqualTo("e\u0301");
  }

  @Test
  void specialTokensAndVocabulary() {
    assertThat(qwen3.tokenId("<|im_end|>")).contains(151645);
    assertThat(qwen3.tokenId("<|endoftext|>")).contains(151643);
    assertThat(qwen3.isSpecial(151645)).isTrue();
    assertThat(qwen3.isSpecial(9707)).isFalse();
    assertThat(qwen3.vocabularySize()).isEqualTo(151669);
    assertThat(llama3.tokenId("<|end_of_text|>")).contains(128001);
    assertThat(llama3.tokenId("<|begin_of_text|>")).contains(128000);
    assertThat(llama3.tokenId("<|eot_id|>")).contains(128009);
    assertThat(llama3.vocabularySize()).isEqualTo(128256);
    assertThat(qwen3.tokenId("no such token at all ¤¤")).isEmpty();
  }

  @Test
  void tokenIdFindsOrdinaryVocabularyEntries() {
    int[] hello = qwen3.encode("hello");
    assertThat(hello).hasSize(1);
    assertThat(qwen3.tokenId("hello")).contains(hello[0]);
    // byte-level BPE stores a leading space as "Ġ"
    int[] spaced = qwen3.encode(" world");
    assertThat(spaced).hasSize(1);
    assertThat(qwen3.tokenId("Ġworld")).contains(spaced[0]);
  }

  @Test
  void longPromptsAreNeverTruncated() {
    String text = longText(new Random(7), 520_000);
    int[] q = qwen3.encode(text);
    int[] l = llama3.encode(text);
    assertThat(q.length).isGreaterThan(100_000);
    assertThat(l.length).isGreaterThan(100_000);
    assertThat(qwen3.decode(q)).isEqualTo(text);
    assertThat(llama3.decode(l)).isEqualTo(text);
  }

  @Test
  void concurrentEncodeAndDecodeMatchSingleThreaded() throws Exception {
    Random random = new Random(42);
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      texts.add(longText(random, 200 + random.nextInt(4000)));
    }
    List<int[]> expected = new ArrayList<>();
    for (String t : texts) {
      expected.add(qwen3.encode(t));
    }
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> futures = new ArrayList<>();
      for (int thread = 0; thread < 8; thread++) {
        int offset = thread;
        futures.add(
            pool.submit(
                () -> {
                  int checked = 0;
                  for (int round = 0; round < 4; round++) {
                    for (int i = 0; i < texts.size(); i++) {
                      int k = (i + offset * 7 + round) % texts.size();
                      int[] ids = qwen3.encode(texts.get(k));
                      assertThat(ids).isEqualTo(expected.get(k));
                      assertThat(qwen3.decode(ids)).isEqualTo(texts.get(k));
                      checked++;
                    }
                  }
                  return checked;
                }));
      }
      int total = 0;
      for (Future<Integer> f : futures) {
        total += f.get(5, TimeUnit.MINUTES);
      }
      assertThat(total).isEqualTo(8 * 4 * texts.size());
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
    }
  }

  @Test
  void closeWaitsForCallsInFlightAndLaterCallsFailCleanly() throws Exception {
    Tokenizer tok = Tokenizer.huggingFace(TestModels.tokenizerJson("qwen3"));
    String text = longText(new Random(3), 200_000);
    int expected = tok.encode(text).length;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> inFlight = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        inFlight.add(
            pool.submit(
                () -> {
                  try {
                    return tok.encode(text).length;
                  } catch (IllegalStateException closed) {
                    return -1; // started after close(): refused, not crashed
                  }
                }));
      }
      tok.close();
      for (Future<Integer> f : inFlight) {
        assertThat(f.get(5, TimeUnit.MINUTES)).isIn(expected, -1);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(5, TimeUnit.MINUTES)).isTrue();
    }
    assertThatThrownBy(() -> tok.encode("hi"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> tok.decode(new int[] {1})).isInstanceOf(IllegalStateException.class);
    tok.close(); // idempotent
  }

  @Test
  void rejectsIdsOutsideTheVocabulary() {
    assertThatThrownBy(() -> qwen3.decode(new int[] {9707, 151669}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("151669");
  }

  @Test
  void missingOrBrokenFilesGiveClearErrors(@TempDir Path dir) throws IOException {
    Path missing = dir.resolve("tokenizer.json");
    assertThatThrownBy(() -> Tokenizer.huggingFace(missing))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining(missing.toString());

    Files.writeString(missing, "{ not json");
    assertThatThrownBy(() -> Tokenizer.huggingFace(missing))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(missing.toString());

    Files.writeString(missing, "{\"version\": \"1.0\"}");
    assertThatThrownBy(() -> Tokenizer.huggingFace(missing))
        .isInstanceOf(IOException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("model");
  }

  /** Mixed-script prose of about {@code chars} characters, already in NFC. */
  static String longText(Random random, int chars) {
    String[] words = {
      "the",
      "router",
      "caches",
      "prefix",
      "blocks",
      "and",
      "routes",
      "requests",
      "to",
      "workers",
      "你好",
      "世界",
      "模型",
      "🙂",
      "🚀",
      "naïve",
      "café",
      "q\u0301",
      "über",
      "Ωμέγα",
      "123",
      "4.5",
      "\n",
      "  ",
      "\t",
      "{\"json\": true}",
      "<tag>",
      "it's",
      "don't",
      "résumé",
    };
    StringBuilder sb = new StringBuilder(chars + 32);
    while (sb.length() < chars) {
      sb.append(words[random.nextInt(words.length)]);
      if (random.nextInt(4) != 0) {
        sb.append(' ');
      }
    }
    return sb.toString();
  }
}
