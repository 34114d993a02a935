package io.kvrouter.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.preprocess.template.ChatTemplate;
import io.kvrouter.preprocess.tokenizer.Tokenizer;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.routing.Migration;
import io.kvrouter.routing.RouteTarget;
import io.kvrouter.routing.Routers;
import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a chat template's failure tells the client: the template's own errors (its {@code
 * raise_exception}, a Jinja error) come back as a 400 with their message; any other failure, such
 * as a JDK exception whose message names Java classes, is not a client error and carries none of
 * its message, only its cause for the log.
 */
class PreprocessorTemplateErrorsTest {
  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  private Throwable failureWith(ChatTemplate template) throws Exception {
    ModelAssets assets =
        new ModelAssets("m", Tokenizer.bytes(), template, List.of(), OptionalInt.empty());
    Preprocessor preprocessor =
        new Preprocessor(
            vertx,
            assets,
            "m",
            Routers.create(
                RouterMode.ROUND_ROBIN,
                KvRouterConfig.DEFAULTS,
                16,
                List.of(new RouteTarget(new WorkerEndpoint("w1", "127.0.0.1", 1, "generate"), 100)),
                plane,
                Duration.ofSeconds(120),
                Migration.OFF,
                vertx,
                new SimpleMeterRegistry()),
            OutputParsers.NONE);
    Throwable failure =
        Futures.failure(
            preprocessor.generate(
                new GenerationRequest(
                    "r1",
                    new Prompt.Chat(List.of(ChatMessage.user("hi"))),
                    4,
                    null,
                    null,
                    null,
                    null,
                    false,
                    null,
                    null)));
    assertThat(plane.requestOf).isEmpty();
    return failure;
  }

  @Test
  void aTemplatesRaiseException_reachesTheClientWithItsMessage() throws Exception {
    Throwable failure =
        failureWith(
            ChatTemplate.jinja(
                "{{ raise_exception('Conversation roles must alternate user/assistant') }}",
                null,
                null));

    assertThat(failure)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessage(
            "The chat template of m cannot render these messages:"
                + " Conversation roles must alternate user/assistant");
    assertThat(((InvalidRequestException) failure).param()).isEqualTo("messages");
  }

  @Test
  void aJinjaErrorOfTheTemplate_reachesTheClientWithItsPythonMessage() throws Exception {
    Throwable failure =
        failureWith(ChatTemplate.jinja("\n{{ messages[0]['content'] + 1 }}", null, null));

    assertThat(failure)
        .isInstanceOf(InvalidRequestException.class)
        .hasMessageContaining("TypeError")
        .hasMessageContaining("(template line 2)");
  }

  @Test
  void aJdkExceptionInRendering_isNoClientError_andItsMessageStaysOut() throws Exception {
    ChatTemplate castsWrongly =
        (messages, addGenerationPrompt, variables) -> {
          Object count = messages.size();
          return (String) count;
        };
    ChatTemplate dereferencesNull =
        (messages, addGenerationPrompt, variables) -> {
          String absent = (String) variables.get("absent");
          return absent.trim();
        };

    for (ChatTemplate template : List.of(castsWrongly, dereferencesNull)) {
      Throwable failure = failureWith(template);

      assertThat(failure).isNotInstanceOf(InvalidRequestException.class);
      assertThat(failure.getMessage())
          .isEqualTo("The chat template of m failed unexpectedly")
          .doesNotContain("java.lang")
          .doesNotContain("String");
      // the JDK's message, with its class names, is kept for the log
      assertThat(failure.getCause())
          .isInstanceOfAny(ClassCastException.class, NullPointerException.class);
      assertThat(failure.getCause().getMessage()).contains("String");
    }
  }
}
