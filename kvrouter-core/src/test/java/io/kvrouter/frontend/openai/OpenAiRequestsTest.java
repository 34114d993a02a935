package io.kvrouter.frontend.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiRequestsTest {
  private static JsonObject chat(String extra) {
    return new JsonObject(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]"
            + (extra.isEmpty() ? "" : "," + extra)
            + "}");
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
        OpenAiRequests.chat(
            chat(
                "\"stream\":true,\"stream_options\":{\"include_usage\":true},"
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
  void minTokensAboveMaxTokens_isRefused_namingTheFieldUsed() {
    rejected(
        "\"max_tokens\":5,\"min_tokens\":6",
        "min_tokens",
        "'min_tokens' (6) must not be more than 'max_tokens' (5)");
    rejected(
        "\"max_completion_tokens\":5,\"min_tokens\":6",
        "min_tokens",
        "'min_tokens' (6) must not be more than 'max_completion_tokens' (5)");
    assertThatThrownBy(
            () ->
                OpenAiRequests.completion(
                    new JsonObject(
                        "{\"model\":\"m\",\"prompt\":\"p\",\"max_tokens\":1,\"min_tokens\":2}")))
        .hasMessageContaining("'min_tokens' (2) must not be more than 'max_tokens' (1)");
    assertThat(OpenAiRequests.chat(chat("\"max_tokens\":5,\"min_tokens\":5")).minTokens())
        .isEqualTo(5);
  }

  @Test
  void theMaxTokensField_isCarriedForErrorsAboutIt() {
    assertThat(
            OpenAiRequests.chat(chat("\"max_completion_tokens\":5"))
                .toGeneration("r")
                .maxTokensParam())
        .isEqualTo("max_completion_tokens");
    assertThat(OpenAiRequests.chat(chat("\"max_tokens\":5")).toGeneration("r").maxTokensParam())
        .isEqualTo("max_tokens");
    assertThat(OpenAiRequests.chat(chat("")).toGeneration("r").maxTokensParam())
        .isEqualTo("max_tokens");
  }

  @Test
  void contentParts_arePartsJoinedWithNewlinesForAStringTemplate() {
    OpenAiRequest request =
        OpenAiRequests.chat(
            new JsonObject(
                "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":"
                    + "[{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]}]}"));
    ChatMessage message = ((Prompt.Chat) request.prompt()).messages().get(0);
    assertThat(message.content()).isEqualTo(new ChatMessage.Content.Parts(List.of("a", "b")));
    assertThat(message.text()).isEqualTo("a\nb");
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
    rejected("\"top_logprobs\":2", "top_logprobs", "needs 'logprobs' set to true");
    rejected(
        "\"tool_choice\":\"required\",\"tools\":[{\"function\":{\"name\":\"f\"}}]",
        "tool_choice",
        "\"required\" is not supported");
    rejected("\"functions\":[]", "functions", "Unrecognized request argument supplied: functions");
    rejected("\"stream_options\":{\"include_usage\":true}", "stream_options", "only allowed");
  }

  /**
   * Structured output is not supported, so no request reaches a worker with guided decoding: the
   * one kind Dynamo keeps from migrating (its grammar state would restart on the new worker), which
   * is why kvrouter's migration needs no such exemption (docs/interop.md §10.10).
   */
  @Test
  void guidedDecodingParameters_areRejected() {
    for (String name :
        List.of(
            "response_format",
            "guided_json",
            "guided_regex",
            "guided_choice",
            "guided_grammar",
            "structured_outputs")) {
      rejected("\"" + name + "\":{}", name, "Unrecognized request argument supplied: " + name);
    }
    // nvext holds only cache_salt here (CacheSaltsTest): Dynamo's guided decoding in it is refused
    rejected(
        "\"nvext\":{\"guided_json\":{}}",
        "nvext.guided_json",
        "Unrecognized request argument supplied: nvext.guided_json");
  }

  @Test
  void messages_areChecked() {
    assertThatThrownBy(
            () -> OpenAiRequests.chat(new JsonObject("{\"model\":\"m\",\"messages\":[]}")))
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(
            () ->
                OpenAiRequests.chat(
                    new JsonObject(
                        "{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}")))
        .hasMessageContaining("wizard");
    assertThatThrownBy(
            () ->
                OpenAiRequests.chat(
                    new JsonObject("{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}")))
        .hasMessageContaining("'model' is required");
  }

  @Test
  void completions_takePromptsAndEcho() {
    OpenAiRequest request =
        OpenAiRequests.completion(
            new JsonObject(
                "{\"model\":\"m\",\"prompt\":[\"abc\"],\"echo\":true,\"max_tokens\":3}"));
    assertThat(((Prompt.Text) request.prompt()).text()).isEqualTo("abc");
    assertThat(request.output().echo()).isTrue();
    OpenAiRequest batch =
        OpenAiRequests.completion(new JsonObject("{\"model\":\"m\",\"prompt\":[\"a\",[7,8]]}"));
    assertThat(batch.prompts())
        .containsExactly(new Prompt.Text("a"), new Prompt.Tokens(new int[] {7, 8}));
    assertThat(batch.toGenerations("id"))
        .extracting(g -> g.requestId())
        .containsExactly("id-0", "id-1");
    assertThat(request.toGenerations("id")).extracting(g -> g.requestId()).containsExactly("id");
    assertThatThrownBy(() -> OpenAiRequests.completion(new JsonObject("{\"model\":\"m\"}")))
        .hasMessageContaining("'prompt' is required");
  }

  @Test
  void toolsAndToolCalls_reachTheTemplateAsVllmShapesThem() {
    OpenAiRequest request =
        OpenAiRequests.chat(
            new JsonObject(
                """
        {"model":"m","tools":[{"type":"function","function":{"name":"get","parameters":
          {"type":"object"}}}],
         "messages":[{"role":"user","content":"w?"},
          {"role":"assistant","content":null,"reasoning_content":"hm",
           "tool_calls":[{"id":"c1","type":"function","function":{"name":"get",
             "arguments":"{\\"city\\": \\"Paris\\"}"}}]},
          {"role":"tool","tool_call_id":"c1","content":"22C"}],
         "chat_template_kwargs":{"enable_thinking":false}}"""));
    Prompt.Chat chat = (Prompt.Chat) request.prompt();
    java.util.Map<String, Object> tool = chat.tools().get(0);
    assertThat(tool.keySet()).containsExactly("type", "function");
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> function = (java.util.Map<String, Object>) tool.get("function");
    assertThat(function.keySet()).containsExactly("name", "description", "parameters");
    assertThat(function)
        .containsEntry("name", "get")
        .containsEntry("description", null)
        .containsEntry("parameters", java.util.Map.of("type", "object"));
    ChatMessage call = chat.messages().get(1);
    assertThat(call.content()).isNull();
    assertThat(call.reasoning()).isEqualTo("hm");
    assertThat(call.toolCalls())
        .containsExactly(new ChatMessage.ToolCall("c1", "get", java.util.Map.of("city", "Paris")));
    assertThat(chat.messages().get(2).toolCallId()).isEqualTo("c1");
    assertThat(chat.templateVariables()).containsEntry("enable_thinking", false);
    assertThat(request.output().parseToolCalls()).isTrue();
    assertThat(request.output().parseReasoning()).isTrue();
  }

  /** vLLM's function definition keeps extra fields after its own, in the request's order. */
  @Test
  void toolFunctionFields_beyondVllmsOwnAreKeptInTheirOrder() {
    Prompt.Chat chat =
        (Prompt.Chat)
            OpenAiRequests.chat(
                    new JsonObject(
                        """
        {"model":"m","messages":[{"role":"user","content":"w?"}],
         "tools":[{"type":"function","function":{"x-z":{"b":[1,null]},"strict":false,
           "parameters":{"type":"object"},"name":"get","x-a":null}}]}"""))
                .prompt();
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> function =
        (java.util.Map<String, Object>) chat.tools().get(0).get("function");
    assertThat(function.keySet())
        .containsExactly("name", "description", "parameters", "x-z", "strict", "x-a");
    assertThat(function.get("strict")).isEqualTo(false);
    assertThat(function.get("x-z"))
        .isEqualTo(java.util.Map.of("b", java.util.Arrays.asList(1, null)));
    assertThat(function).containsEntry("x-a", null);
  }

  /** Arguments are read as vLLM reads them: Python's json.loads, {} where that fails. */
  @Test
  void toolCallArguments_areParsedAsPythonParsesThemAndBrokenJsonIsAnEmptyObject() {
    assertThat(arguments("{oops")).isEqualTo(java.util.Map.of());
    assertThat(arguments("")).isEqualTo(java.util.Map.of());
    assertThat(arguments("{} {}")).isEqualTo(java.util.Map.of());
    assertThat(arguments("\ufeff{}")).isEqualTo(java.util.Map.of());
    assertThat(arguments("[INF]")).isEqualTo(java.util.Map.of());
    assertThat(arguments(" [NaN, -Infinity, 1e400, 7] "))
        .isEqualTo(List.of(Double.NaN, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, 7L));
    assertThat(arguments("{\"n\": 12345678901234567890123}"))
        .isEqualTo(java.util.Map.of("n", new java.math.BigInteger("12345678901234567890123")));
    assertThat(
            new java.util.ArrayList<Object>(
                ((java.util.Map<?, ?>) arguments("{\"a\": 1, \"b\": 2, \"a\": 3}")).keySet()))
        .containsExactly((Object) "a", "b");
    assertThatThrownBy(() -> arguments("[" + "9".repeat(4301) + "]"))
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("more than 4300 digits");
  }

  private static Object arguments(String json) {
    JsonObject body =
        new JsonObject()
            .put("model", "m")
            .put(
                "messages",
                new io.vertx.core.json.JsonArray()
                    .add(
                        new JsonObject()
                            .put("role", "assistant")
                            .put(
                                "tool_calls",
                                new io.vertx.core.json.JsonArray()
                                    .add(
                                        new JsonObject()
                                            .put("id", "c1")
                                            .put(
                                                "function",
                                                new JsonObject()
                                                    .put("name", "f")
                                                    .put("arguments", json))))));
    Prompt.Chat chat = (Prompt.Chat) OpenAiRequests.chat(body).prompt();
    return chat.messages().get(0).toolCalls().get(0).arguments();
  }

  @Test
  void chatSurface_isValidatedByName() {
    rejected("\"tool_choice\":\"auto\"", "tool_choice", "needs 'tools'");
    rejected(
        "\"tools\":[{\"function\":{\"name\":\"f\",\"strict\":true}}]",
        "tools[0].function.strict",
        "not supported");
    rejected(
        "\"continue_final_message\":true,\"add_generation_prompt\":true",
        "continue_final_message",
        "cannot both be true");
    rejected(
        "\"chat_template_kwargs\":{\"messages\":[]}",
        "chat_template_kwargs",
        "sets 'messages' through its own field");
    rejected("\"parallel_tool_calls\":false", "parallel_tool_calls", "not supported");
    assertThatThrownBy(
            () ->
                OpenAiRequests.chat(
                    new JsonObject(
                        """
        {"model":"m","messages":[{"role":"user","content":"x","tool_call_id":"1"}]}""")))
        .hasMessageContaining(
            "'messages[0].tool_call_id' is only allowed in a message with role" + " tool");
    assertThatThrownBy(
            () ->
                OpenAiRequests.chat(
                    new JsonObject(
                        """
        {"model":"m","messages":[{"role":"user","content":[{"type":"image_url"}]}]}""")))
        .hasMessageContaining("'messages[0].content[0].type' 'image_url': only text parts");
  }

  @Test
  void continueFinalMessage_turnsTheGenerationPromptOff() {
    Prompt.Chat chat =
        (Prompt.Chat) OpenAiRequests.chat(chat("\"continue_final_message\":true")).prompt();
    assertThat(chat.continueFinalMessage()).isTrue();
    assertThat(chat.addGenerationPrompt()).isFalse();
  }

  @Test
  void completionPrompts_takeTextOrTokenIds() {
    assertThat(
            OpenAiRequests.completion(
                    new JsonObject(
                        """
        {"model":"m","prompt":[5,6,7]}"""))
                .prompt())
        .isEqualTo(new Prompt.Tokens(new int[] {5, 6, 7}));
    assertThat(
            OpenAiRequests.completion(
                    new JsonObject(
                        """
        {"model":"m","prompt":[[5,6]]}"""))
                .prompt())
        .isEqualTo(new Prompt.Tokens(new int[] {5, 6}));
    assertThat(
            OpenAiRequests.completion(
                    new JsonObject(
                        """
        {"model":"m","prompt":"hi","add_special_tokens":false}"""))
                .prompt())
        .isEqualTo(new Prompt.Text("hi", false));
    assertThatThrownBy(
            () ->
                OpenAiRequests.completion(
                    new JsonObject(
                        """
        {"model":"m","prompt":[1,-2]}""")))
        .hasMessageContaining("non-negative integers; element 1 is -2");
    assertThatThrownBy(
            () ->
                OpenAiRequests.completion(
                    new JsonObject(
                        """
        {"model":"m","prompt":{}}""")))
        .hasMessageContaining("'prompt' must be a string, an array of token ids");
  }
}
