package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.completions.Completion;
import com.openai.models.completions.CompletionCreateParams;

/** The OpenAI Java client against a test router, and a round of its four kinds of request. */
final class OpenAiRounds {
  private OpenAiRounds() {}

  /** A client of {@code router} that sends no key and never retries. */
  static OpenAIClient client(RouterFixture router) {
    return OpenAIOkHttpClient.builder()
        .baseUrl(router.baseUrl + "/v1")
        .apiKey("not-used")
        .maxRetries(0)
        .build();
  }

  /** A chat request for {@code maxTokens} tokens of {@code model}. */
  static ChatCompletionCreateParams chat(String model, long maxTokens) {
    return ChatCompletionCreateParams.builder()
        .model(model)
        .addUserMessage("Hello there")
        .maxCompletionTokens(maxTokens)
        .build();
  }

  /**
   * Four requests of {@code model}, each checked whole: chat for 12 tokens, unary (ending for its
   * length) and streamed, and completions for 7, unary and streamed.
   */
  static void chatAndCompletions(OpenAIClient client, String model) {
    ChatCompletion unary = client.chat().completions().create(chat(model, 12));
    assertThat(unary.choices().get(0).message().content().orElseThrow()).hasSize(12);
    assertThat(unary.choices().get(0).finishReason().asString()).isEqualTo("length");

    StringBuilder streamed = new StringBuilder();
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(chat(model, 12))) {
      stream.stream()
          .forEach(
              c ->
                  c.choices()
                      .forEach(choice -> choice.delta().content().ifPresent(streamed::append)));
    }
    assertThat(streamed).hasSize(12);

    CompletionCreateParams text =
        CompletionCreateParams.builder().model(model).prompt("Once").maxTokens(7).build();
    Completion completion = client.completions().create(text);
    assertThat(completion.choices().get(0).text()).hasSize(7);
    StringBuilder streamedText = new StringBuilder();
    try (StreamResponse<Completion> stream = client.completions().createStreaming(text)) {
      stream.stream()
          .forEach(c -> c.choices().forEach(choice -> streamedText.append(choice.text())));
    }
    assertThat(streamedText).hasSize(7);
  }
}
