package io.kvrouter.protocol.vllm;

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
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The router's request as vLLM's token-in {@code /v1/completions} body and vLLM's streamed chunks
 * as outputs, against the shapes of vLLM's protocol classes (docs/notes/plain-engines.md §1).
 */
class VllmCompletionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final PreprocessedRequest REQUEST =
      new PreprocessedRequest(
              "qwen",
              new int[] {151644, 872, 198},
              new StopConditions(64, List.of("###"), List.of(7), 2, true),
              new SamplingOptions(1, 42L, 0.7, 0.9, 20, 0.05, 0.1, 0.2, 1.1),
              new OutputOptions(3, false),
              List.of(151645),
              List.of())
          .withDpRank(1);

  @Test
  void theRequest_isTokenIdsStreamedWithIdsBack_andEveryParameterUnderVllmsName() throws Exception {
    JsonNode expected =
        JSON.readTree(
            """
            {"model":"qwen","prompt":[151644,872,198],"stream":true,
             "stream_options":{"include_usage":true},"return_token_ids":true,
             "max_tokens":64,"stop":["###"],"stop_token_ids":[7],"min_tokens":2,
             "ignore_eos":true,"n":1,"seed":42,"temperature":0.7,"top_p":0.9,"top_k":20,
             "min_p":0.05,"presence_penalty":0.1,"frequency_penalty":0.2,
             "repetition_penalty":1.1,"logprobs":3,"return_tokens_as_token_ids":true,
             "skip_special_tokens":false}
            """);
    assertThat(JSON.readTree(JSON.writeValueAsString(VllmCompletions.requestBody(REQUEST))))
        .isEqualTo(expected);
  }

  @Test
  void aSimulatedVllm_readsTheSameRequestBack() {
    JsonNode body = JSON.valueToTree(VllmCompletions.requestBody(REQUEST));
    PreprocessedRequest read = VllmCompletions.readRequest(body, List.of(151645), Optional.of(1));
    assertThat(read).isEqualTo(REQUEST);
    assertThatThrownBy(
            () ->
                VllmCompletions.readRequest(
                    JSON.createObjectNode().put("prompt", "text"), List.of(), Optional.empty()))
        .hasMessageContaining("token ids");
  }

  @Test
  void aNamespace_travelsAsVllmsCacheSalt_taggedAsDynamoTagsIt_andIsReadBack() throws Exception {
    PreprocessedRequest salted = REQUEST.withCacheSalt("key/alice/t");
    JsonNode body = JSON.valueToTree(VllmCompletions.requestBody(salted));
    assertThat(body.get("cache_salt").textValue()).isEqualTo("dynamo-cache-salt:key/alice/t");
    assertThat(VllmCompletions.requestBody(REQUEST).has("cache_salt")).isFalse();
    assertThat(VllmCompletions.readRequest(body, List.of(151645), Optional.of(1)))
        .isEqualTo(salted);
    // a client salting the engine itself, untagged, names its own namespace
    assertThat(
            VllmCompletions.readRequest(
                    JSON.readTree("{\"prompt\":[1],\"cache_salt\":\"plain\"}"),
                    List.of(),
                    Optional.empty())
                .cacheSalt())
        .contains("plain");
    assertThatThrownBy(
            () ->
                VllmCompletions.readRequest(
                    JSON.readTree("{\"prompt\":[1],\"cache_salt\":\"\"}"),
                    List.of(),
                    Optional.empty()))
        .hasMessageContaining("cache_salt");
  }

  @Test
  void aRequestWithoutMaxTokens_getsVllmsDefaultOf16() throws Exception {
    PreprocessedRequest read =
        VllmCompletions.readRequest(
            JSON.readTree("{\"prompt\":[1,2]}"), List.of(), Optional.empty());
    assertThat(read.stopConditions().maxTokens()).isEqualTo(16);
  }

  @Test
  void chunks_giveTheNewIds_finishReasons_andErrors() throws Exception {
    EngineOutput first =
        VllmCompletions.readChunk(
                JSON.readTree(
                    """
                    {"id":"cmpl-1","object":"text_completion","created":1,"model":"m",
                     "choices":[{"index":0,"text":"Hel","logprobs":null,"finish_reason":null,
                     "stop_reason":null,"prompt_token_ids":[1,2,3],"token_ids":[9906]}]}
                    """))
            .orElseThrow();
    assertThat(first).isEqualTo(EngineOutput.tokens(9906));
    assertThat(finish("\"stop\"", "null")).isEqualTo(FinishReason.EOS);
    assertThat(finish("\"stop\"", "\"###\"")).isEqualTo(FinishReason.STOP);
    assertThat(finish("\"stop\"", "7")).isEqualTo(FinishReason.STOP);
    assertThat(finish("\"length\"", "null")).isEqualTo(FinishReason.LENGTH);
    assertThat(finish("\"abort\"", "null")).isEqualTo(FinishReason.CANCELLED);
    assertThat(
            VllmCompletions.readChunk(
                JSON.readTree(
                    "{\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}")))
        .isEmpty();
    assertThatThrownBy(
            () ->
                VllmCompletions.readChunk(
                    JSON.readTree("{\"error\":{\"message\":\"out of memory\",\"code\":500}}")))
        .isInstanceOf(EngineErrorEvent.class)
        .hasMessage("out of memory");
  }

  @Test
  void logprobs_namedByTokenId_becomeOurs() throws Exception {
    EngineOutput output =
        VllmCompletions.readChunk(
                JSON.readTree(
                    """
                    {"choices":[{"index":0,"text":"a","token_ids":[5],"finish_reason":null,
                     "logprobs":{"text_offset":[0],"token_logprobs":[-0.5],"tokens":["token_id:5"],
                     "top_logprobs":[{"token_id:5":-0.5,"token_id:9":-1.25}]}}]}
                    """))
            .orElseThrow();
    assertThat(output.logProbs()).containsExactly(-0.5);
    assertThat(output.topLogprobs())
        .containsExactly(
            List.of(
                new EngineOutput.TopLogprob(1, 5, null, -0.5),
                new EngineOutput.TopLogprob(2, 9, null, -1.25)));
  }

  @Test
  void theSimulatedWorkersChunks_readBackAsWhatItGenerated() {
    JsonNode chunk = VllmCompletions.chunk("cmpl-x", 1, "m", "hi", new int[] {3, 4}, "length");
    assertThat(VllmCompletions.readChunk(chunk))
        .contains(EngineOutput.finished(FinishReason.LENGTH, 3, 4));
    assertThat(VllmCompletions.readChunk(VllmCompletions.usageChunk("cmpl-x", 1, "m", 3, 2)))
        .isEmpty();
  }

  private static FinishReason finish(String name, String stopReason) throws Exception {
    return VllmCompletions.readChunk(
            JSON.readTree(
                "{\"choices\":[{\"index\":0,\"token_ids\":[1],\"finish_reason\":"
                    + name
                    + ",\"stop_reason\":"
                    + stopReason
                    + "}]}"))
        .orElseThrow()
        .finishReason();
  }
}
