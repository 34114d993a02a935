package io.kvrouter.protocol.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming chunk reader reads every chunk as the tree reader does: the same output for the
 * usual chunks and every chunk off their shape, and the same failure for the rest.
 */
class VllmChunkJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest
  @ValueSource(
      strings = {
        // as vLLM streams them
        "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,\"model\":\"m\",\"choices\":"
            + "[{\"index\":0,\"text\":\"hi\",\"logprobs\":null,\"finish_reason\":null,"
            + "\"stop_reason\":null,\"token_ids\":[3,4],\"prompt_logprobs\":null}],\"usage\":null}",
        "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"stop\",\"stop_reason\":null,"
            + "\"token_ids\":[2]}]}",
        "{\"choices\":[{\"finish_reason\":\"stop\",\"stop_reason\":\"###\",\"token_ids\":[]}]}",
        "{\"choices\":[{\"finish_reason\":\"stop\",\"stop_reason\":13,\"token_ids\":[1]}]}",
        "{\"choices\":[{\"finish_reason\":\"length\",\"token_ids\":[1]}]}",
        "{\"choices\":[{\"finish_reason\":\"abort\",\"token_ids\":null}]}",
        "{\"choices\":[{\"finish_reason\":\"error\"}]}",
        "{\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}",
        "{\"choices\":[{\"token_ids\":[1]},{\"token_ids\":[9]}]}",
        // logprobs and errors: the tree reader
        "{\"choices\":[{\"token_ids\":[5],\"logprobs\":{\"tokens\":[\"token_id:5\"],"
            + "\"token_logprobs\":[-0.5],\"top_logprobs\":[{\"token_id:5\":-0.5,\"token_id:6\":-2}]}}]}",
        "{\"error\":{\"message\":\"out of memory\",\"type\":\"InternalServerError\",\"code\":500}}",
        "{\"error\":\"plain\"}",
        "{\"error\":null,\"choices\":[{\"token_ids\":[1]}]}",
        // off the usual shape
        "{\"choices\":[{\"token_ids\":[1.5,2]}]}",
        "{\"choices\":[{\"token_ids\":[\"7\"]}]}",
        "{\"choices\":[{\"token_ids\":[4000000000]}]}",
        "{\"choices\":[{\"token_ids\":{\"a\":1}}]}",
        "{\"choices\":[{\"finish_reason\":7}]}",
        "{\"choices\":[{\"finish_reason\":\"sideways\"}]}",
        "{\"choices\":[3]}",
        "{\"choices\":{}}",
        "{\"id\":\"no choices\"}",
        "[]",
        "{\"choices\":[{\"token_ids\":[1]}]} {}",
        "{\"choices\":[{\"token_ids\":[1,",
        "not json"
      })
  void readsAsTheTreeReaderDoes(String chunk) {
    byte[] padded = ("xx" + chunk + "yy").getBytes(StandardCharsets.UTF_8);
    int length = chunk.getBytes(StandardCharsets.UTF_8).length;
    Object expected;
    try {
      expected = VllmCompletions.readChunk(JSON.readTree(chunk));
    } catch (Exception e) {
      expected = e.getClass() + ": " + firstLine(e.getMessage());
    }
    Object actual;
    try {
      actual = VllmChunkJson.read(padded, 2, length);
    } catch (Exception e) {
      actual = e.getClass() + ": " + firstLine(e.getMessage());
    }
    assertThat(actual).as(chunk).isEqualTo(expected);
  }

  /** Jackson's messages end with a source excerpt, which differs between a string and bytes. */
  private static String firstLine(String message) {
    return message == null ? null : message.lines().findFirst().orElse("");
  }
}
