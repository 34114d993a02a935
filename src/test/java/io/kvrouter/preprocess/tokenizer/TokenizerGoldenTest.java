package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden token ids in {@code golden/tokenization/{model}.json}, computed outside Java by an
 * independent implementation, transformers.js ({@code scripts/golden/tokenization.mjs}; see the
 * README beside the fixtures), for every model folder {@code scripts/fetch-test-models} caches and
 * every case in {@code cases.json}: ASCII, code, whitespace runs, CRLF, numbers, CJK, emoji (ZWJ,
 * flags, skin tones), combining marks, RTL scripts, Thai, special-token text inside content, the
 * empty string and a 140,000-token prompt (no truncation).
 *
 * <p>{@link Tokenizer#encode(String)} adds no special tokens (the chat template writes them), so it is
 * compared with the fixture's {@code ids} ({@code add_special_tokens: false}); {@code
 * ids_with_special} ({@code add_special_tokens: true}) holds the BOS the tokenizer.json's
 * post-processor adds; {@link #encodeWithSpecialTokens_addsWhatHuggingFaceAdds} checks
 * {@code encode(text, true)}, which completions prompts use, against it.
 */
class TokenizerGoldenTest {
  private static final String DIR = "/golden/tokenization/";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final List<String> MODELS =
      List.of(
          "qwen3",
          "qwen2_5",
          "llama3",
          "llama3_1",
          "llama3_2",
          "deepseek_v3",
          "gemma3",
          "gptoss",
          "mistral_nemo");

  private static final Map<String, Tokenizer> TOKENIZERS = new ConcurrentHashMap<>();

  @AfterAll
  static void closeAll() {
    TOKENIZERS.values().forEach(Tokenizer::close);
  }

  private static Tokenizer tokenizer(String model) {
    return TOKENIZERS.computeIfAbsent(
        model,
        m -> {
          try {
            return Tokenizer.huggingFace(TestModels.tokenizerJson(m));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
  }

  private static JsonNode read(String file) {
    try (InputStream in = TokenizerGoldenTest.class.getResourceAsStream(DIR + file)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + DIR + file);
      }
      return JSON.readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String textOf(JsonNode c) {
    JsonNode repeat = c.get("repeat");
    if (repeat != null) {
      return repeat.get("text").asText().repeat(repeat.get("times").asInt());
    }
    return c.get("text").asText();
  }

  private static int[] ints(JsonNode array) {
    int[] out = new int[array.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = array.get(i).intValue();
    }
    return out;
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    JsonNode cases = read("cases.json").get("cases");
    for (String model : MODELS) {
      JsonNode golden = read(model + ".json").get("cases");
      for (JsonNode c : cases) {
        String name = c.get("name").asText();
        JsonNode expected = golden.get(name);
        if (expected == null) {
          throw new IllegalStateException(model + ".json has no case " + name);
        }
        out.add(Arguments.of(model, name, textOf(c), expected));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void encodeAndDecodeMatchTheGolden(String model, String name, String text, JsonNode expected) {
    Tokenizer tok = tokenizer(model);
    int[] ids = tok.encode(text);
    if (expected.has("count")) {
      // the long case: no truncation, and both ends as the reference has them
      assertThat(ids.length)
          .as(model + " " + name + " token count")
          .isEqualTo(expected.get("count").intValue());
      assertThat(Arrays.copyOfRange(ids, 0, 16)).isEqualTo(ints(expected.get("first16")));
      assertThat(Arrays.copyOfRange(ids, ids.length - 16, ids.length))
          .isEqualTo(ints(expected.get("last16")));
      assertThat(expected.get("decode_equals_text").booleanValue()).isTrue();
      assertThat(tok.decode(ids)).isEqualTo(text);
      return;
    }
    int[] golden = ints(expected.get("ids"));
    assertThat(ids).as(model + " " + name + " ids").isEqualTo(golden);
    assertThat(tok.decode(golden))
        .as(model + " " + name + " decode")
        .isEqualTo(expected.get("decode").asText());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void encodeWithSpecialTokens_addsWhatHuggingFaceAdds(
      String model, String name, String text, JsonNode expected) {
    int[] ids = tokenizer(model).encode(text, true);
    if (expected.has("count")) {
      assertThat(ids.length)
          .as(model + " " + name + " count")
          .isEqualTo(expected.get("count_with_special").intValue());
      assertThat(Arrays.copyOfRange(ids, 0, 16))
          .isEqualTo(ints(expected.get("first16_with_special")));
      return;
    }
    assertThat(ids).as(model + " " + name).isEqualTo(ints(expected.get("ids_with_special")));
  }

  @Test
  void everyModelFixtureCoversEveryCase() {
    int cases = read("cases.json").get("cases").size();
    assertThat(cases).isGreaterThanOrEqualTo(25);
    for (String model : MODELS) {
      assertThat(read(model + ".json").get("cases").size()).as(model).isEqualTo(cases);
    }
  }
}
