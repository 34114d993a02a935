package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The streaming reader of a generate stream's items decodes every input exactly as binding the
 * records through the mapper does: the same item for the usual shapes and for every shape off them,
 * and the same error for a malformed one.
 */
class OutputItemJsonTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        // the usual shapes
        "{\"data\":{\"data\":{\"token_ids\":[11,12]}},\"complete_final\":false}",
        "{\"complete_final\":true}",
        "{\"data\":{\"data\":{\"token_ids\":[]}},\"complete_final\":false}",
        "{\"data\":{\"data\":{\"token_ids\":[7],\"text\":\"h\\u00e9\\n\\\"\",\"index\":2}}}",
        "{\"data\":{\"data\":{\"token_ids\":[0,2147483647],\"finish_reason\":\"stop\"}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1],\"finish_reason\":\"length\",\"index\":null}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1],\"finish_reason\":{\"error\":\"oom\"}}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1],\"finish_reason\":\"abort\"}}}",
        "{\"data\":{\"data\":{\"token_ids\":[5,6],\"log_probs\":[-0.5,-1.25],"
            + "\"top_logprobs\":[[{\"rank\":1,\"token_id\":5,\"token\":\"a\",\"logprob\":-0.5}],"
            + "[{\"token_id\":6,\"logprob\":-1.25}]]}}}",
        "{\"data\":{\"event\":\"error\",\"error\":{\"error_type\":\"Unknown\",\"message\":\"boom\"}}}",
        "{\"data\":{\"event\":\"error\",\"comment\":[\"boom\",\"again\"]}}",
        "{\"data\":{\"id\":\"x\",\"event\":null,\"data\":null}}",
        "{\"data\":null,\"complete_final\":false}",
        // fields a newer release adds, nested, in any order
        "{\"complete_final\":false,\"data\":{\"extra\":[1,{\"a\":[]}],\"data\":{\"token_ids\":[3],"
            + "\"disaggregated_params\":{\"x\":[1,2]},\"completion_usage\":null}},\"meta\":{}}",
        // off the usual shape: the mapper decides
        "{\"complete_final\":false,\"data\":{\"data\":{\"token_ids\":[1]}},"
            + "\"data\":{\"data\":{\"token_ids\":[2]}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1]}},\"complete_final\":true,\"complete_final\":false}",
        "{\"data\":{\"data\":{\"token_ids\":[1],\"text\":\"a\",\"token_ids\":[2]}}}",
        "{\"data\":{\"event\":\"error\",\"error\":{\"message\":\"a\",\"message\":\"b\"}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1.0,2]}}}",
        "{\"data\":{\"data\":{\"token_ids\":[\"3\"]}}}",
        "{\"data\":{\"data\":{\"token_ids\":[3000000000]}}}",
        "{\"data\":{\"data\":{\"token_ids\":[1,null]}}}",
        "{\"data\":{\"data\":{\"token_ids\":7}}}",
        "{\"data\":{\"data\":{\"text\":5}}}",
        "{\"data\":{\"data\":{\"index\":\"2\"}}}",
        "{\"data\":{\"data\":\"text\"}}",
        "{\"data\":{\"id\":3}}",
        "{\"data\":{\"comment\":\"one\"}}",
        "{\"complete_final\":null}",
        "{\"complete_final\":\"true\"}",
        "{\"data\":{\"data\":{\"finish_reason\":\"sideways\"}}}",
        "[]",
        "null",
        "{\"data\":{\"data\":{\"token_ids\":[1]}}} trailing",
        "{\"data\":{\"data\":{\"token_ids\":[1,",
        ""
      })
  void decodesAsTheMapperDoes(String json) {
    assertSameAsMapper(json);
  }

  @Test
  void decodesRandomTokenRunsAsTheMapperDoes() {
    Random random = new Random(7);
    for (int n = 0; n < 200; n++) {
      StringBuilder json = new StringBuilder("{\"data\":{\"data\":{\"token_ids\":[");
      int count = random.nextInt(40);
      for (int i = 0; i < count; i++) {
        json.append(i == 0 ? "" : ",").append(random.nextInt(Integer.MAX_VALUE));
      }
      json.append("]}},\"complete_final\":false}");
      assertSameAsMapper(json.toString());
    }
  }

  private static void assertSameAsMapper(String json) {
    Buffer body = Buffer.buffer(json);
    Object expected;
    try {
      expected = WireJson.read(body, ResponseEnvelope.OF_OUTPUT, "response item");
    } catch (TcpCodecException e) {
      expected = e.getMessage();
    }
    Object actual;
    try {
      actual = OutputItemJson.read(body, "response item");
    } catch (TcpCodecException e) {
      actual = e.getMessage();
    }
    assertThat(actual).as(json).isEqualTo(expected);
  }
}
