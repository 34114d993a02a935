package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class CompletionBodyTest {
  @Test
  void body_isAStreamedCompletionOfTheTokens() {
    JsonObject body =
        new JsonObject(CompletionBody.json("org/\"odd\" model", new int[] {5, 0, 255}, 12));

    assertThat(body.getString("model")).isEqualTo("org/\"odd\" model");
    assertThat(body.getJsonArray("prompt")).isEqualTo(new JsonArray().add(5).add(0).add(255));
    assertThat(body.getInteger("max_tokens")).isEqualTo(12);
    assertThat(body.getBoolean("ignore_eos")).isTrue();
    assertThat(body.getBoolean("stream")).isTrue();
    assertThat(body.getJsonObject("stream_options").getBoolean("include_usage")).isTrue();
  }
}
