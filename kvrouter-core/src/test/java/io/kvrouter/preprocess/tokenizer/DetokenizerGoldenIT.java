package io.kvrouter.preprocess.tokenizer;

import static io.kvrouter.preprocess.tokenizer.ModelGoldens.ints;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.SoftAssertions.assertSoftly;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.preprocess.TestModels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden decodes in {@code golden/detokenization/{model}.json}, computed outside Java by an
 * independent implementation, transformers.js ({@code scripts/golden/detokenization.mjs}; see the
 * README beside the fixtures), for every model folder {@code scripts/fetch-test-models} caches: the
 * ids of the tokenization cases, chat markers and other special and added tokens, characters cut
 * into single-byte tokens (complete, incomplete, around a special token), leading-space tokens and
 * a pseudo-random sample of each vocabulary. Each sequence has a golden with {@code
 * skip_special_tokens} false and true, both without {@code clean_up_tokenization_spaces} (the
 * engines decode with the Rust library, which has no such step).
 *
 * <p>{@link Tokenizer#decode} must give the golden, and so must {@link IncrementalDetokenizer}: the
 * concatenation of everything it returns, however the ids are cut into chunks, is the full decode.
 */
class DetokenizerGoldenIT {
  private static final String DIR = "/golden/detokenization/";
  private static final boolean[] SKIP_SPECIAL_TOKENS = {false, true};
  private static final List<String> KINDS =
      List.of("text:", "special:", "bytes:", "space:", "random:");

  /** One fixture entry: the ids and their full decode keeping and skipping special tokens. */
  record Golden(String model, String name, int[] ids, String decode, String decodeSkipSpecial) {
    String expected(boolean skipSpecialTokens) {
      return skipSpecialTokens ? decodeSkipSpecial : decode;
    }

    @Override
    public String toString() {
      return model + " " + name;
    }
  }

  /** How the ids are cut into the chunks given to {@link IncrementalDetokenizer#add}. */
  private enum Chunking {
    ONE_BY_ONE,
    PAIRS,
    TRIPLES,
    RANDOM;

    /** The sizes of the successive chunks; RANDOM is seeded by the sequence, so runs repeat. */
    IntSupplier sizes(Golden golden) {
      return switch (this) {
        case ONE_BY_ONE -> () -> 1;
        case PAIRS -> () -> 2;
        case TRIPLES -> () -> 3;
        case RANDOM -> {
          Random random = new Random(golden.toString().hashCode());
          // mostly small chunks, now and then a larger one (a burst of speculative tokens)
          yield () -> 1 + random.nextInt(random.nextInt(4) == 0 ? 12 : 3);
        }
      };
    }
  }

  private static JsonNode fixture(String model) {
    return ModelGoldens.read(DIR + model + ".json").get("sequences");
  }

  static Stream<Golden> sequences() {
    List<Golden> out = new ArrayList<>();
    for (String model : ModelGoldens.MODELS) {
      for (Map.Entry<String, JsonNode> e : fixture(model).properties()) {
        JsonNode g = e.getValue();
        out.add(
            new Golden(
                model,
                e.getKey(),
                ints(g.get("ids")),
                g.get("decode").asText(),
                g.get("decode_skip_special").asText()));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sequences")
  void fullDecodeMatchesTheGolden(Golden golden) {
    Tokenizer tok = TestModels.tokenizer(golden.model());
    assertSoftly(
        softly -> {
          for (boolean skip : SKIP_SPECIAL_TOKENS) {
            softly
                .assertThat(tok.decode(golden.ids(), skip))
                .as("%s skip_special_tokens=%s", golden, skip)
                .isEqualTo(golden.expected(skip));
          }
        });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sequences")
  void incrementalDecodeMatchesTheGoldenHoweverTheIdsAreChunked(Golden golden) {
    Tokenizer tok = TestModels.tokenizer(golden.model());
    assertSoftly(
        softly -> {
          for (boolean skip : SKIP_SPECIAL_TOKENS) {
            for (Chunking chunking : Chunking.values()) {
              softly
                  .assertThat(stream(tok, golden.ids(), skip, chunking.sizes(golden)))
                  .as("%s skip_special_tokens=%s chunks %s", golden, skip, chunking)
                  .isEqualTo(golden.expected(skip));
            }
          }
        });
  }

  private static String stream(Tokenizer tok, int[] ids, boolean skip, IntSupplier chunkSizes) {
    IncrementalDetokenizer detokenizer = new IncrementalDetokenizer(tok, skip);
    StringBuilder out = new StringBuilder();
    for (int from = 0; from < ids.length; ) {
      int to = Math.min(ids.length, from + chunkSizes.getAsInt());
      out.append(detokenizer.add(ids, from, to));
      from = to;
    }
    return out.append(detokenizer.finish()).toString();
  }

  @Test
  void everyModelHasEveryKindOfSequence() {
    for (String model : ModelGoldens.MODELS) {
      List<String> names = new ArrayList<>();
      fixture(model).fieldNames().forEachRemaining(names::add);
      assertThat(names).as(model).hasSizeGreaterThanOrEqualTo(50);
      for (String kind : KINDS) {
        assertThat(names).as(model).anyMatch(name -> name.startsWith(kind));
      }
    }
  }

  /**
   * The fixtures carry exactly the overrides of {@code overrides.json}, with their values: catches
   * an override added or edited without re-running the script.
   */
  @Test
  void overriddenGoldensAreExactlyTheDocumentedOverrides() {
    Set<String> documented = new TreeSet<>();
    for (Map.Entry<String, JsonNode> model :
        ModelGoldens.read(DIR + "overrides.json").properties()) {
      for (Map.Entry<String, JsonNode> sequence : model.getValue().properties()) {
        String id = model.getKey() + " " + sequence.getKey();
        documented.add(id);
        JsonNode override = sequence.getValue();
        JsonNode golden = fixture(model.getKey()).get(sequence.getKey());
        assertThat(golden).as(id).isNotNull();
        assertThat(golden.path("overridden").asText())
            .as(id)
            .isEqualTo(override.get("reason").asText());
        assertThat(golden.get("decode")).as(id).isEqualTo(override.get("decode"));
        assertThat(golden.get("decode_skip_special"))
            .as(id)
            .isEqualTo(override.get("decode_skip_special"));
      }
    }
    Set<String> overridden = new TreeSet<>();
    for (String model : ModelGoldens.MODELS) {
      for (Map.Entry<String, JsonNode> e : fixture(model).properties()) {
        if (e.getValue().has("overridden")) {
          overridden.add(model + " " + e.getKey());
        }
      }
    }
    assertThat(overridden).isEqualTo(documented);
  }
}
