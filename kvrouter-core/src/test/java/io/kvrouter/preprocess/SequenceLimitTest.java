package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.InvalidRequestException;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class SequenceLimitTest {
  private static final SequenceLimit CONTEXT_100 = new SequenceLimit(100, false);

  private static GenerationRequest request(
      Prompt prompt, Integer maxTokens, String param, Integer minTokens) {
    return new GenerationRequest(
        "r", prompt, maxTokens, param, null, null, minTokens, false, null, null);
  }

  private static GenerationRequest text(Integer maxTokens) {
    return request(new Prompt.Text("p"), maxTokens, null, null);
  }

  private static void refused(Runnable check, String param, String message) {
    assertThatThrownBy(check::run)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(message)
        .extracting(e -> ((InvalidRequestException) e).param())
        .isEqualTo(param);
  }

  @Test
  void theSmallerLimitApplies_aTieGoingToTheContextLength() {
    assertThat(SequenceLimit.of(OptionalInt.of(4096), OptionalLong.of(16 * 16384)))
        .contains(new SequenceLimit(4096, false));
    assertThat(SequenceLimit.of(OptionalInt.of(131072), OptionalLong.of(16 * 1000)))
        .contains(new SequenceLimit(16000, true));
    assertThat(SequenceLimit.of(OptionalInt.of(16000), OptionalLong.of(16000)))
        .contains(new SequenceLimit(16000, false));
    assertThat(SequenceLimit.of(OptionalInt.empty(), OptionalLong.of(1L << 40)))
        .contains(new SequenceLimit(Integer.MAX_VALUE, true));
    assertThat(SequenceLimit.of(OptionalInt.empty(), OptionalLong.empty())).isEmpty();
  }

  @Test
  void maxTokensOverTheLimit_isRefusedBeforeTheTokens_namingTheFieldUsed() {
    CONTEXT_100.checkMaxTokens(text(100));
    refused(
        () -> CONTEXT_100.checkMaxTokens(text(101)),
        "max_tokens",
        "'max_tokens' is 101, more than this model's context length of 100 tokens (prompt and"
            + " completion together)");
    refused(
        () ->
            new SequenceLimit(100, true)
                .checkMaxTokens(
                    request(
                        new Prompt.Chat(List.of(ChatMessage.user("x"))),
                        Integer.MAX_VALUE,
                        "max_completion_tokens",
                        null)),
        "max_completion_tokens",
        "'max_completion_tokens' is 2147483647, more than the 100 tokens the largest worker's KV"
            + " cache holds (prompt and completion together)");
  }

  @Test
  void promptAndMaxTokensOverTheLimit_isRefusedWithBothCounts() {
    assertThat(CONTEXT_100.completionTokens(text(40), 60)).isEqualTo(40);
    refused(
        () -> CONTEXT_100.completionTokens(text(41), 60),
        "max_tokens",
        "This model's context length is 100 tokens, but this request needs 101: 60 in the prompt"
            + " and 41 for the completion ('max_tokens'). Shorten the prompt or lower"
            + " 'max_tokens'.");
    refused(
        () -> new SequenceLimit(100, true).completionTokens(text(Integer.MAX_VALUE), 60),
        "max_tokens",
        "The largest worker's KV cache holds 100 tokens, but this request needs 2147483707: 60 in"
            + " the prompt and 2147483647 for the completion ('max_tokens'). Shorten the prompt or"
            + " lower 'max_tokens'.");
  }

  @Test
  void withoutMaxTokens_theCompletionMayHaveWhatThePromptLeaves() {
    assertThat(CONTEXT_100.completionTokens(text(null), 60)).isEqualTo(40);
    assertThat(CONTEXT_100.completionTokens(text(null), 99)).isEqualTo(1);
    refused(
        () -> CONTEXT_100.completionTokens(text(null), 100),
        "prompt",
        "This model's context length is 100 tokens, but the prompt alone has 100, which leaves"
            + " no room for a completion. Shorten the prompt.");
    refused(
        () ->
            CONTEXT_100.completionTokens(
                request(new Prompt.Chat(List.of(ChatMessage.user("x"))), null, null, null), 150),
        "messages",
        "This model's context length is 100 tokens, but the prompt alone has 150, which leaves"
            + " no room for a completion. Shorten the prompt.");
  }

  @Test
  void minTokensOverWhatThePromptLeaves_isRefused() {
    assertThat(CONTEXT_100.completionTokens(request(new Prompt.Text("p"), null, null, 40), 60))
        .isEqualTo(40);
    refused(
        () -> CONTEXT_100.completionTokens(request(new Prompt.Text("p"), null, null, 41), 60),
        "min_tokens",
        "'min_tokens' is 41, more than the 40 tokens a prompt of 60 leaves for the completion."
            + " This model's context length is 100 tokens.");
  }
}
