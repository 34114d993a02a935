package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.preprocess.TestModels;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A real model folder ({@code --model-path}, Qwen3's tokenizer.json and chat template) through the
 * HTTP API: the prompt is rendered and tokenized exactly as Hugging Face does, and the workers'
 * tokens come back as valid text, the same streamed or not.
 */
class ModelPathIT {

  @Test
  void qwen3_promptTokensMatchHuggingFaceAndOutputDecodes() throws Exception {
    try (RouterFixture router =
        RouterFixture.start(
            Map.of(
                "model-path", List.of(TestModels.dir("qwen3").toString()),
                "mock-workers", List.of("2"),
                "mock-ttft-ms", List.of("0"),
                "mock-itl-ms", List.of("0")))) {
      OpenAIClient client =
          OpenAIOkHttpClient.builder()
              .baseUrl(router.baseUrl + "/v1")
              .apiKey("x")
              .maxRetries(0)
              .build();
      ChatCompletionCreateParams params =
          ChatCompletionCreateParams.builder()
              .model("qwen3")
              .addUserMessage("Hello, my dog is cute. 你好世界 🙂")
              .maxCompletionTokens(40)
              .build();

      ChatCompletion unary = client.chat().completions().create(params);

      // <|im_start|>user\nHello, my dog is cute. 你好世界 🙂<|im_end|>\n<|im_start|>assistant\n
      // is 19 tokens for Qwen3's tokenizer (the ids are checked in HfTokenizerTest).
      assertThat(unary.usage().orElseThrow().promptTokens()).isEqualTo(19);
      assertThat(unary.usage().orElseThrow().completionTokens()).isEqualTo(40);
      String content = unary.choices().get(0).message().content().orElseThrow();
      assertThat(content).isNotBlank().doesNotContain("\uFFFD");

      StringBuilder streamed = new StringBuilder();
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(params)) {
        stream.stream()
            .forEach(
                c -> c.choices().forEach(ch -> ch.delta().content().ifPresent(streamed::append)));
      }
      assertThat(streamed.toString()).isEqualTo(content);
      assertThat(router.detector.blockedThreads()).isEmpty();
    }
  }
}
