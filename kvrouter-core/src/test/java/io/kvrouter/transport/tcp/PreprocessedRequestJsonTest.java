package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.PreprocessedRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The request body is written as Dynamo's frontend writes it (docs/interop.md §10.4): every field
 * without a serde skip attribute present, in declaration order, {@code null} when unset.
 */
class PreprocessedRequestJsonTest {

  @Test
  void aPlainRequestIsWhatSerdeJsonWritesOfDynamosStruct() throws Exception {
    // golden/dynamo-serde: serde_json of a struct shaped as Dynamo's (scripts/golden/dynamo-serde)
    try (var in =
        getClass().getResourceAsStream("/golden/dynamo-serde/preprocessed_request_plain.json")) {
      String serde = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(WireJson.string(WireSamples.request())).isEqualTo(serde);
    }
  }

  @Test
  void aRequestInACacheNamespaceIsWhatSerdeJsonWritesOfDynamosRoutingHints() throws Exception {
    // routing.cache_salt: RoutingHints' cache_namespace under its serde rename, after dp_rank
    PreprocessedRequest salted =
        WireSamples.request().withCacheSalt("key/alice/tenant-a").withDpRank(1);
    try (var in =
        getClass()
            .getResourceAsStream("/golden/dynamo-serde/preprocessed_request_cache_salt.json")) {
      String serde = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      assertThat(WireJson.string(salted)).isEqualTo(serde);
      PreprocessedRequest read = WireJson.MAPPER.readValue(serde, PreprocessedRequest.class);
      assertThat(read.cacheSalt()).contains("key/alice/tenant-a");
      assertThat(read.dpRank()).hasValue(1);
      assertThat(read).isEqualTo(salted);
    }
  }

  @Test
  void withoutASaltOrARankNoRoutingHintsAreWritten() throws Exception {
    PreprocessedRequest unsalted = WireSamples.request().withCacheSalt("a").withCacheSalt(null);
    assertThat(unsalted.routing()).isNull();
    assertThat(WireJson.string(unsalted)).isEqualTo(WireSamples.BODY_JSON);
    assertThat(WireSamples.request().withCacheSalt("").cacheSalt()).isEmpty();
  }

  @Test
  void aPlainRequestIsWrittenWithDynamosKeysInOrderAndNullsForUnsetValues() throws Exception {
    String json = WireJson.string(WireSamples.request());

    assertThat(json).isEqualTo(WireSamples.BODY_JSON);
    JsonNode body = WireJson.MAPPER.readTree(json);
    assertThat(keys(body))
        .containsExactly(
            "model",
            "token_ids",
            "stop_conditions",
            "sampling_options",
            "output_options",
            "eos_token_ids",
            "mdc_sum",
            "annotations",
            "router_config_override");
    assertThat(keys(body.get("stop_conditions")))
        .containsExactly(
            "max_tokens",
            "stop",
            "stop_token_ids",
            "stop_token_ids_hidden",
            "min_tokens",
            "ignore_eos",
            "max_thinking_tokens");
    assertThat(keys(body.get("sampling_options")))
        .containsExactly(
            "n",
            "best_of",
            "presence_penalty",
            "frequency_penalty",
            "repetition_penalty",
            "temperature",
            "top_p",
            "top_k",
            "min_p",
            "use_beam_search",
            "length_penalty",
            "seed",
            "include_stop_str_in_output",
            "guided_decoding");
    assertThat(keys(body.get("output_options")))
        .containsExactly(
            "logprobs",
            "prompt_logprobs",
            "skip_special_tokens",
            "formatted_prompt",
            "return_tokens_as_token_ids");
    assertThat(body.get("mdc_sum").isNull()).isTrue();
    assertThat(body.get("router_config_override").isNull()).isTrue();
  }

  @Test
  void unsetMaxTokensIsWrittenAsNull_notLeftOut() {
    PreprocessedRequest request =
        new PreprocessedRequest("m", new int[] {7}, null, null, null, null, null);

    assertThat(WireJson.string(request))
        .startsWith("{\"model\":\"m\",\"token_ids\":[7],\"stop_conditions\":{\"max_tokens\":null,");
  }

  @Test
  void setValuesAreWrittenInTheirDynamoPlaces_andReadBack() {
    PreprocessedRequest request =
        new PreprocessedRequest(
            "m",
            new int[] {1, 2},
            new PreprocessedRequest.StopConditions(16, List.of("\n"), List.of(5), 2, true),
            new PreprocessedRequest.SamplingOptions(1, 42L, 0.5, 0.9, 40, 0.05, 0.1, 0.2, 1.1),
            new PreprocessedRequest.OutputOptions(3, false),
            List.of(2),
            List.of("a"));

    String json = WireJson.string(request);

    assertThat(json)
        .isEqualTo(
            "{\"model\":\"m\",\"token_ids\":[1,2],"
                + "\"stop_conditions\":{\"max_tokens\":16,\"stop\":[\"\\n\"],\"stop_token_ids\":[5],"
                + "\"stop_token_ids_hidden\":null,\"min_tokens\":2,\"ignore_eos\":true,"
                + "\"max_thinking_tokens\":null},"
                + "\"sampling_options\":{\"n\":1,\"best_of\":null,\"presence_penalty\":0.1,"
                + "\"frequency_penalty\":0.2,\"repetition_penalty\":1.1,\"temperature\":0.5,"
                + "\"top_p\":0.9,\"top_k\":40,\"min_p\":0.05,\"use_beam_search\":null,"
                + "\"length_penalty\":null,\"seed\":42,\"include_stop_str_in_output\":null,"
                + "\"guided_decoding\":null},"
                + "\"output_options\":{\"logprobs\":3,\"prompt_logprobs\":null,"
                + "\"skip_special_tokens\":false,\"formatted_prompt\":null,"
                + "\"return_tokens_as_token_ids\":null},"
                + "\"eos_token_ids\":[2],\"mdc_sum\":null,\"annotations\":[\"a\"],"
                + "\"router_config_override\":null}");
    assertThat(WireJson.read(json, PreprocessedRequest.class, "request")).isEqualTo(request);
  }

  @Test
  void aWorkerReadsDynamosBodyWithNullsAndFieldsKvrouterDoesNotCarry() {
    String dynamo =
        "{\"model\":\"m\",\"token_ids\":[1],\"stop_conditions\":{\"max_tokens\":null,"
            + "\"stop\":null,\"stop_token_ids\":null,\"stop_token_ids_hidden\":[9],"
            + "\"min_tokens\":null,\"ignore_eos\":null,\"max_thinking_tokens\":8},"
            + "\"sampling_options\":{\"n\":null,\"best_of\":null,\"temperature\":null,"
            + "\"guided_decoding\":{\"json\":{}},\"detokenize\":false},"
            + "\"output_options\":{\"logprobs\":null,\"prompt_logprobs\":1},"
            + "\"eos_token_ids\":null,\"mdc_sum\":\"abc\",\"annotations\":null,"
            + "\"routing\":{\"dp_rank\":1,\"lora_name\":\"x\"},\"router_config_override\":null,"
            + "\"extra_args\":{\"k\":1},\"_HEALTH_CHECK\":true}";

    PreprocessedRequest read = WireJson.read(dynamo, PreprocessedRequest.class, "request");

    assertThat(read)
        .isEqualTo(
            new PreprocessedRequest("m", new int[] {1}, null, null, null, null, null)
                .withDpRank(1));
  }

  private static List<String> keys(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
