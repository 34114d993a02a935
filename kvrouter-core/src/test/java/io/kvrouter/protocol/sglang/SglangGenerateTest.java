package io.kvrouter.protocol.sglang;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.protocol.EngineErrorEvent;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.OutputOptions;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The router's request as SGLang's {@code /generate} body and SGLang's streamed outputs, cumulative
 * and incremental, as outputs (docs/notes/plain-engines.md §2).
 */
class SglangGenerateTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final PreprocessedRequest REQUEST =
      new PreprocessedRequest(
              "qwen",
              new int[] {151644, 872, 198},
              new StopConditions(64, List.of("###"), List.of(7), 2, true),
              new SamplingOptions(1, 42L, 0.7, 0.9, 0, 0.05, 0.1, 0.2, 1.1),
              new OutputOptions(3, false),
              List.of(151645),
              List.of())
          .withDpRank(1);

  @Test
  void theRequest_isInputIdsWithSglangsSamplingNames() throws Exception {
    JsonNode expected =
        JSON.readTree(
            """
            {"rid":"r1","input_ids":[151644,872,198],"stream":true,
             "sampling_params":{"max_new_tokens":64,"stop":["###"],"stop_token_ids":[7],
              "min_new_tokens":2,"ignore_eos":true,"n":1,"sampling_seed":42,"temperature":0.7,
              "top_p":0.9,"top_k":-1,"min_p":0.05,"presence_penalty":0.1,"frequency_penalty":0.2,
              "repetition_penalty":1.1,"skip_special_tokens":false},
             "return_logprob":true,"top_logprobs_num":3,"routed_dp_rank":1}
            """);
    assertThat(JSON.readTree(JSON.writeValueAsString(SglangGenerate.requestBody(REQUEST, "r1"))))
        .isEqualTo(expected);
    assertThat(SglangGenerate.abortBody("r1").toString()).isEqualTo("{\"rid\":\"r1\"}");
  }

  @Test
  void aSimulatedSglang_readsTheRequestBack() throws Exception {
    PreprocessedRequest read =
        SglangGenerate.readRequest(
            JSON.readTree(JSON.writeValueAsString(SglangGenerate.requestBody(REQUEST, "r1"))),
            List.of(151645));
    assertThat(read.tokenIds()).containsExactly(151644, 872, 198);
    assertThat(read.stopConditions()).isEqualTo(REQUEST.stopConditions());
    assertThat(read.samplingOptions().topK()).as("OpenAI's 0 is SGLang's -1").isEqualTo(-1);
    assertThat(read.outputOptions().logprobs()).isEqualTo(3);
    assertThat(read.dpRank()).hasValue(1);
    assertThat(
            SglangGenerate.readRequest(JSON.readTree("{\"input_ids\":[1]}"), List.of())
                .stopConditions()
                .maxTokens())
        .as("SGLang's default")
        .isEqualTo(128);
  }

  @Test
  void aNamespace_travelsAsSglangsCacheSalt_untagged_andIsReadBack() throws Exception {
    PreprocessedRequest salted = REQUEST.withCacheSalt("key/alice/t");
    JsonNode body = JSON.valueToTree(SglangGenerate.requestBody(salted, "r1"));
    assertThat(body.get("cache_salt").textValue()).isEqualTo("key/alice/t");
    assertThat(SglangGenerate.requestBody(REQUEST, "r1").has("cache_salt")).isFalse();
    PreprocessedRequest read = SglangGenerate.readRequest(body, List.of(151645));
    assertThat(read.cacheSalt()).contains("key/alice/t");
    assertThat(read.dpRank()).hasValue(1);
    assertThatThrownBy(
            () ->
                SglangGenerate.readRequest(
                    JSON.readTree("{\"input_ids\":[1],\"cache_salt\":5}"), List.of()))
        .hasMessageContaining("cache_salt");
  }

  @Test
  void cumulativeOutputs_handOnOnlyTheNewIds() throws Exception {
    SglangGenerate.Reader reader = new SglangGenerate.Reader();
    assertThat(reader.read(chunk("[5]", 1, "null"))).contains(EngineOutput.tokens(5));
    assertThat(reader.read(chunk("[5,6,7]", 3, "null"))).contains(EngineOutput.tokens(6, 7));
    assertThat(reader.read(chunk("[5,6,7]", 3, "null"))).as("a repeat brings nothing").isEmpty();
    assertThat(reader.read(chunk("[5,6,7,8]", 4, "{\"type\":\"length\",\"length\":4}")))
        .contains(EngineOutput.finished(FinishReason.LENGTH, 8));
  }

  @Test
  void incrementalOutputs_areTakenWhole() throws Exception {
    SglangGenerate.Reader reader = new SglangGenerate.Reader();
    assertThat(reader.read(chunk("[5,6]", 2, "null"))).contains(EngineOutput.tokens(5, 6));
    assertThat(reader.read(chunk("[7]", 3, "null"))).contains(EngineOutput.tokens(7));
    assertThat(reader.read(chunk("[8]", 4, "{\"type\":\"stop\",\"matched\":151645}")))
        .contains(EngineOutput.finished(FinishReason.EOS, 8));
  }

  @Test
  void finishReasons_andErrors() throws Exception {
    assertThat(
            SglangGenerate.finishReason(JSON.readTree("{\"type\":\"stop\",\"matched\":\"###\"}")))
        .isEqualTo(FinishReason.STOP);
    assertThat(SglangGenerate.finishReason(JSON.readTree("{\"type\":\"abort\",\"message\":\"x\"}")))
        .isEqualTo(FinishReason.CANCELLED);
    assertThatThrownBy(
            () ->
                new SglangGenerate.Reader()
                    .read(JSON.readTree("{\"error\":{\"message\":\"bad input\",\"code\":400}}")))
        .isInstanceOf(EngineErrorEvent.class)
        .hasMessage("bad input");
  }

  @Test
  void theSimulatedWorkersChunks_readBack() {
    SglangGenerate.Reader reader = new SglangGenerate.Reader();
    assertThat(reader.read(SglangGenerate.chunk("r", "a", new int[] {3}, null, 2)))
        .contains(EngineOutput.tokens(3));
    assertThat(
            reader.read(SglangGenerate.chunk("r", "ab", new int[] {3, 4}, FinishReason.LENGTH, 2)))
        .contains(EngineOutput.finished(FinishReason.LENGTH, 4));
  }

  private static JsonNode chunk(String ids, int total, String finish) throws Exception {
    return JSON.readTree(
        "{\"text\":\"t\",\"output_ids\":"
            + ids
            + ",\"meta_info\":{\"id\":\"r1\",\"finish_reason\":"
            + finish
            + ",\"prompt_tokens\":3,\"completion_tokens\":"
            + total
            + "}}");
  }
}
