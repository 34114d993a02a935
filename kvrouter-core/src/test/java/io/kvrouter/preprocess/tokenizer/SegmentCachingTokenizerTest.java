package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Cutting a prompt at chat markers and encoding the pieces apart gives the whole prompt's ids, for
 * every test model whose tokenizer allows the cut: checked on the chat-template goldens (real
 * templates' renderings of 22 conversations) and on texts built to stress the cut points.
 */
class SegmentCachingTokenizerTest {

  static Stream<String> models() {
    return ModelGoldens.MODELS.stream();
  }

  @ParameterizedTest
  @MethodSource("models")
  void piecesGiveTheWholeTextsIds(String model) throws IOException {
    try (HfTokenizer whole = HfTokenizer.load(TestModels.tokenizerJson(model))) {
      List<String> markers = whole.segmentMarkers();
      if (model.equals("gemma3")) {
        assertThat(markers).as("Gemma's normalizer rewrites spaces: no cut").isEmpty();
        return;
      }
      assertThat(markers).isNotEmpty();
      Tokenizer cached = new SegmentCachingTokenizer(whole, markers, 1_000_000);
      Tokenizer tiny = new SegmentCachingTokenizer(whole, markers, 64);
      List<String> texts = texts(model, markers.stream().limit(12).toList());
      assertThat(texts).hasSizeGreaterThan(10);
      for (int round = 0; round < 2; round++) { // the second round reads the cache
        for (String text : texts) {
          int[] expected = whole.encode(text);
          assertThat(cached.encode(text)).as("%s: %s", model, text).isEqualTo(expected);
          assertThat(tiny.encode(text)).as("%s (evicting): %s", model, text).isEqualTo(expected);
        }
      }
      assertThat(cached.encode("Hello", true)).isEqualTo(whole.encode("Hello", true));
    }
  }

  @Test
  void loadingWrapsATokenizerThatAllowsTheCut_andOnlyThen() throws IOException {
    try (Tokenizer qwen = Tokenizer.huggingFace(TestModels.tokenizerJson("qwen3"));
        Tokenizer uncached = Tokenizer.huggingFace(TestModels.tokenizerJson("qwen3"), 0)) {
      assertThat(qwen).isInstanceOf(SegmentCachingTokenizer.class);
      assertThat(uncached).isNotInstanceOf(SegmentCachingTokenizer.class);
    }
  }

  /** Rendered chats of the model, and texts with its markers in awkward places. */
  private static List<String> texts(String model, List<String> markers) {
    List<String> texts = new ArrayList<>();
    Path goldens = Path.of("src/test/resources/golden/chat-templates", model);
    try (Stream<Path> files = Files.list(goldens)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".txt")).sorted().toList()) {
        texts.add(Files.readString(file, StandardCharsets.UTF_8));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String rendered = texts.get(0);
    for (String marker : markers) {
      texts.add(marker);
      texts.add(marker + marker);
      texts.add("  " + marker + "\n\n" + marker + " x");
      texts.add("héllo\u0301 " + marker + "\u0301 東京 🙂" + marker);
      texts.add("\n\n\n" + marker);
      texts.add(rendered + marker + "user text with " + marker + " inside" + marker);
    }
    return texts;
  }
}
