package io.kvrouter.frontend.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class OpenAiRequestsTest {
  private static JsonObject chat(String extra) {
    return new JsonObject("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
        + (extra.isEmpty() ? "" : "," + extra) + "}");
  }

  private static void rejected(String extra, String param, String message) {
    assertThatThrownBy(() -> OpenAiRequests.chat(chat(extra)))
        .as(extra)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining(message)
        .extracting(e -> ((InvalidRequestException) e).param())
        .isEqualTo(param);
  }

  @Test
  void validChat_isParsedWithEveryParameter() {
    OpenAiRequest request =
        OpenAiRequests.chat(chat("\"stream\":true,\"stream_options\":{\"include_usage\":true},"
            + "\"max_completion_tokens\":7,\"temperature\":0.5,\"top_p\":0.9,\"top_k\":40,"
            + "\"seed\":3,\"stop\":\"END\",\"stop_token_ids\":[2],\"min_tokens\":1,\"ignore_eos\":true"));
    assertThat(request.model()).isEqualTo("m");
    assertThat(request.stream()).isTrue();
    assertThat(request.includeUsage()).isTrue();
    assertThat(request.maxTokens()).isEqualTo(7);
    assertThat(request.stop()).containsExactly("END");
    assertThat(request.stopTokenIds()).containsExactly(2);
    assertThat(request.ignoreEos()).isTrue();
    assertThat(request.sampling().temperature()).isEqualTo(0.5);
    assertThat(request.sampling().topK()).isEqualTo(40);
    assertThat(request.sampling().seed()).isEqualTo(3L);
    assertThat(((Prompt.Chat) request.prompt()).messages()).hasSize(1);
  }

  @Test
  void contentParts_areJoined() {
    OpenAiRequest request = OpenAiRequests.chat(new JsonObject(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
            + "[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}"));
    assertThat(((Prompt.Chat) request.prompt()).messages().get(0).content()).isEqualTo("ab");
  }

  @Test
  void ranges_followDynamo() {
    rejected("\"temperature\":2.5", "temperature", "between 0 and 2");
    rejected("\"top_p\":-0.1", "top_p", "between 0 and 1");
    rejected("\"top_k\":0", "top_k", "-1 or at least 1");
    rejected("\"min_p\":2", "min_p", "between 0 and 1");
    rejected("\"frequency_penalty\":3", "frequency_penalty", "between -2 and 2");
    rejected("\"presence_penalty\":-3", "presence_penalty", "between -2 and 2");
    rejected("\"repetition_penalty\":0", "repetition_penalty", "above 0");
    rejected("\"n\":0", "n", "between 1 and 128");
    rejected("\"n\":3", "n", "temperature");
    rejected("\"top_logprobs\":21", "top_logprobs", "between 0 and 20");
    rejected("\"logit_bias\":{\"5\":101}", "logit_bias", "between -100 and 100");
    rejected("\"logit_bias\":{\"5\":1}", "logit_bias", "not supported");
    rejected("\"stop\":[\"a\",\"b\",\"c\",\"d\",\"e\"]", "stop", "at most 4");
  }

  @Test
  void wrongTypes_nameTheField() {
    rejected("\"temperature\":\"warm\"", "temperature", "must be a number");
    rejected("\"stream\":\"yes\"", "stream", "must be a boolean");
    rejected("\"max_tokens\":1.5", "max_tokens", "must be an integer");
    rejected("\"stop\":[1]", "stop", "a string or an array of strings");
    rejected("\"stop_token_ids\":[\"x\"]", "stop_token_ids", "non-negative integers");
  }

  @Test
  void unsupportedAndUnknown_areRejectedByName() {
    rejected("\"n\":2,\"temperature\":1", "n", "not supported");
    rejected("\"logprobs\":true", "logprobs", "not supported");
    rejected("\"tools\":[]", "tools", "Unrecognized request argument supplied: tools");
    rejected("\"stream_options\":{\"include_usage\":true}", "stream_options", "only allowed");
  }

  @Test
  void messages_areChecked() {
    assertThatThrownBy(() -> OpenAiRequests.chat(new JsonObject("{\"model\":\"m\",\"messages\":[]}")))
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(() -> OpenAiRequests.chat(new JsonObject(
            "{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}")))
        .hasMessageContaining("wizard");
    assertThatThrownBy(() -> OpenAiRequests.chat(new JsonObject("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")))
        .hasMessageContaining("'model' is required");
  }

  @Test
  void completions_takeOnePromptAndEcho() {
    OpenAiRequest request = OpenAiRequests.completion(
        new JsonObject("{\"model\":\"m\",\"prompt\":[\"abc\"],\"echo\":true,\"max_tokens\":3}"));
    assertThat(((Prompt.Text) request.prompt()).text()).isEqualTo("abc");
    assertThat(request.echo()).isTrue();
    assertThatThrownBy(() -> OpenAiRequests.completion(
            new JsonObject("{\"model\":\"m\",\"prompt\":[\"a\",\"b\"]}")))
        .hasMessageContaining("exactly one prompt");
    assertThatThrownBy(() -> OpenAiRequests.completion(new JsonObject("{\"model\":\"m\"}")))
        .hasMessageContaining("'prompt' is required");
  }
}
