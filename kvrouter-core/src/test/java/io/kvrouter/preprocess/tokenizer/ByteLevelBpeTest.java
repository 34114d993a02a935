package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Our Java byte-level BPE against the Rust tokenizer, on the golden texts and rendered chats. */
class ByteLevelBpeTest {

  @org.junit.jupiter.api.Test
  void gemmasPipelineStaysWithTheRustTokenizer() throws IOException {
    assertThat(ByteLevelBpe.load(TestModels.tokenizerJson("gemma3"))).isNull();
    try (Tokenizer qwen = Tokenizer.huggingFace(TestModels.tokenizerJson("qwen3"), 0);
        Tokenizer gemma = Tokenizer.huggingFace(TestModels.tokenizerJson("gemma3"), 0)) {
      assertThat(qwen).isInstanceOf(JavaBpeTokenizer.class);
      assertThat(gemma).isInstanceOf(HfTokenizer.class);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "qwen3",
        "qwen2_5",
        "llama3",
        "llama3_1",
        "llama3_2",
        "deepseek_v3",
        "gptoss",
        "mistral_nemo"
      })
  void givesTheRustTokenizersIds(String model) throws IOException {
    ByteLevelBpe bpe = ByteLevelBpe.load(TestModels.tokenizerJson(model));
    assertThat(bpe).as("supported pipeline").isNotNull();
    List<String> texts = new ArrayList<>();
    for (JsonNode c : ModelGoldens.tokenizationCases()) {
      JsonNode repeat = c.get("repeat");
      texts.add(
          repeat != null
              ? repeat.get("text").asText().repeat(Math.min(repeat.get("times").asInt(), 50))
              : c.get("text").asText());
    }
    try (Stream<Path> files =
        Files.list(Path.of("src/test/resources/golden/chat-templates", model))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".txt")).sorted().toList()) {
        texts.add(Files.readString(f, StandardCharsets.UTF_8));
      }
    }
    try (HfTokenizer rust = HfTokenizer.load(TestModels.tokenizerJson(model))) {
      int mismatches = 0;
      for (String text : texts) {
        if (!java.util.Arrays.equals(rust.encode(text), bpe.encode(text))) {
          mismatches++;
          System.err.println(
              model
                  + " differs on: "
                  + text.substring(0, Math.min(80, text.length())).replace("\n", "\\n"));
        }
      }
      assertThat(mismatches).as(model + " texts differing of " + texts.size()).isZero();
    }
  }

  /**
   * Every code point assigned after Unicode 13.0 (JDK 17's tables), beside ASCII letters, digits,
   * spaces and punctuation: the Rust library classifies them by its own Unicode version, whatever
   * the JDK's.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "qwen3",
        "qwen2_5",
        "llama3",
        "llama3_1",
        "llama3_2",
        "deepseek_v3",
        "gptoss",
        "mistral_nemo"
      })
  void givesTheRustTokenizersIdsOnEveryCodePointAddedSinceUnicode13(String model)
      throws IOException {
    ByteLevelBpe bpe = ByteLevelBpe.load(TestModels.tokenizerJson(model));
    List<String> texts = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    for (String line :
        Files.readAllLines(Path.of("src/test/resources/unicode/added-since-13.txt"))) {
      if (line.startsWith("#")) {
        continue;
      }
      String[] f = line.split(" ");
      for (int cp = Integer.parseInt(f[0], 16); cp <= Integer.parseInt(f[1], 16); cp++) {
        String c = Character.toString(cp);
        text.append(' ')
            .append(c)
            .append(c)
            .append('a')
            .append(c)
            .append('7')
            .append(c)
            .append('.');
        if (text.length() > 4000) {
          texts.add(text.toString());
          text.setLength(0);
        }
      }
    }
    texts.add(text.toString());
    texts.add("ok \uD83E\uDEF6 ok n \uD807\uDF50\uD807\uDF51 m");
    try (HfTokenizer rust = HfTokenizer.load(TestModels.tokenizerJson(model))) {
      List<String> differing = new ArrayList<>();
      for (String t : texts) {
        if (!java.util.Arrays.equals(rust.encode(t), bpe.encode(t))) {
          differing.add(t.substring(0, Math.min(40, t.length())));
        }
      }
      assertThat(differing).as(model + ", of " + texts.size() + " texts").isEmpty();
    }
  }
}
