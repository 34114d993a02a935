package io.kvrouter.preprocess.tokenizer;

import static io.kvrouter.preprocess.tokenizer.ModelGoldens.ints;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.preprocess.TestModels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
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
 * empty string and a 140,000-token prompt (no truncation); and, from {@code cases-unicode.json},
 * every general category of code points added to Unicode after 13.0 (JDK 17's tables). Where
 * transformers.js and the Rust library disagree (Unicode 17 code points, NFC of marks newer than
 * Unicode 9) the golden is the Rust library's ({@code overrides.json}).
 *
 * <p>{@link Tokenizer#encode(String)} adds no special tokens (the chat template writes them), so it
 * is compared with the fixture's {@code ids} ({@code add_special_tokens: false}); {@code
 * ids_with_special} ({@code add_special_tokens: true}) holds the BOS the tokenizer.json's
 * post-processor adds; {@link #encodeWithSpecialTokens_addsWhatHuggingFaceAdds} checks {@code
 * encode(text, true)}, which completions prompts use, against it.
 */
class TokenizerGoldenIT {
  private static final String DIR = "/golden/tokenization/";

  private static JsonNode read(String file) {
    return ModelGoldens.read(DIR + file);
  }

  private static String textOf(JsonNode c) {
    JsonNode repeat = c.get("repeat");
    if (repeat != null) {
      return repeat.get("text").asText().repeat(repeat.get("times").asInt());
    }
    return c.get("text").asText();
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    List<JsonNode> cases = ModelGoldens.tokenizationCases();
    for (String model : ModelGoldens.MODELS) {
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
    Tokenizer tok = TestModels.tokenizer(model);
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
    int[] ids = TestModels.tokenizer(model).encode(text, true);
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
    int cases = ModelGoldens.tokenizationCases().size();
    assertThat(cases).isGreaterThanOrEqualTo(25);
    for (String model : ModelGoldens.MODELS) {
      assertThat(read(model + ".json").get("cases").size()).as(model).isEqualTo(cases);
    }
  }
}
