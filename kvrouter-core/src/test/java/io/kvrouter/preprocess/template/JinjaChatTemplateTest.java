package io.kvrouter.preprocess.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Compares our renderings of the real Llama 3 and Qwen3 chat templates with goldens rendered by
 * Python's jinja2 under Hugging Face's settings ({@code golden/templates/render_goldens.py}).
 */
class JinjaChatTemplateTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GOLDEN = "/golden/templates/";

  static Stream<Arguments> goldenCases() throws IOException {
    JsonNode cases = readCases();
    List<Arguments> args = new ArrayList<>();
    for (String model : List.of("llama3", "qwen3")) {
      Iterator<String> names = cases.fieldNames();
      while (names.hasNext()) {
        args.add(Arguments.of(model, names.next()));
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("goldenCases")
  void matchesPythonJinja2(String model, String caseName) throws IOException {
    JsonNode c = readCases().get(caseName);
    String golden = resource(GOLDEN + model + "/" + caseName + ".txt");
    ChatTemplate template = load(model);

    List<ChatMessage> messages = new ArrayList<>();
    for (JsonNode m : c.get("messages")) {
      messages.add(new ChatMessage(m.get("role").asText(), m.get("content").asText()));
    }
    Map<String, Object> variables = new LinkedHashMap<>();
    if (c.has("variables")) {
      variables.putAll(
          JSON.convertValue(
              c.get("variables"),
              new com.fasterxml.jackson.core.type.TypeReference<Map<String, Object>>() {}));
    }
    String rendered =
        template.render(messages, c.get("add_generation_prompt").asBoolean(), variables);
    assertThat(rendered).isEqualTo(golden);
  }

  @Test
  void raiseExceptionRejectsTheConversationWithItsMessage() {
    ChatTemplate t =
        ChatTemplate.jinja(
            "{% for m in messages %}{% if m.role == 'system' and not loop.first %}"
                + "{{ raise_exception('System message must be first') }}{% endif %}"
                + "{{ m.content }}{% endfor %}",
            null, null);
    assertThat(t.render(List.of(ChatMessage.system("a"), ChatMessage.user("b")), true))
        .isEqualTo("ab");
    assertThatThrownBy(
            () -> t.render(List.of(ChatMessage.user("b"), ChatMessage.system("a")), true))
        .isInstanceOfSatisfying(
            ChatTemplateException.class,
            e -> assertThat(e.reason()).isEqualTo(ChatTemplateException.Reason.REJECTED))
        .hasMessage("System message must be first");
  }

  @Test
  void brokenTemplatesFailWithTheJinjaError() {
    assertThatThrownBy(
            () -> ChatTemplate.jinja("{% for m in messages %}{{ m.content }}", null, null))
        .isInstanceOfSatisfying(
            ChatTemplateException.class,
            e -> assertThat(e.reason()).isEqualTo(ChatTemplateException.Reason.FAILED))
        .hasMessageContaining("chat template does not parse")
        .hasMessageContaining("endfor");
    assertThatThrownBy(
            () ->
                ChatTemplate.jinja("{{ messages[0].content + 1 }}", null, null)
                    .render(List.of(ChatMessage.user("x")), true))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessageContaining("chat template failed to render")
        .hasMessageContaining("TypeError");
    // an unsupported method is an error, not a silently different prompt
    assertThatThrownBy(
            () ->
                ChatTemplate.jinja("{{ messages[0].content.zfill(5) }}", null, null)
                    .render(List.of(ChatMessage.user("x")), true))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessageContaining("zfill");
    assertThatThrownBy(() -> ChatTemplate.jinja("  ", null, null))
        .isInstanceOf(ChatTemplateException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void variablesAndPythonStyleToJson() {
    ChatTemplate t =
        ChatTemplate.jinja(
            "{{ bos_token }}|{{ eos_token }}|{{ 1 if add_generation_prompt else 0 }}|{{ tools |"
                + " tojson }}|{{ messages[0] | tojson }}|{{ tools | tojson(indent=2) }}|{{ missing"
                + " }}|{% if enable_thinking is defined and enable_thinking is false %}nothink{%"
                + " endif %}",
            "<s>", "</s>");
    Map<String, Object> tool = new LinkedHashMap<>();
    tool.put("name", "f");
    tool.put("args", List.of(1, 2.5, true));
    tool.put("q", "say \"héllo\"\n");
    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("tools", List.of(tool));
    vars.put("enable_thinking", false);
    assertThat(t.render(List.of(ChatMessage.user("ü")), true, vars))
        .isEqualTo(
            "<s>|</s>|1|[{\"name\": \"f\", \"args\": [1, 2.5, true], \"q\": \"say \\\"héllo\\\"\\n"
                + "\"}]|{\"role\": \"user\", \"content\": \"ü\"}|[\n"
                + "  {\n"
                + "    \"name\": \"f\",\n"
                + "    \"args\": [\n"
                + "      1,\n"
                + "      2.5,\n"
                + "      true\n"
                + "    ],\n"
                + "    \"q\": \"say \\\"héllo\\\"\\n"
                + "\"\n"
                + "  }\n"
                + "]||nothink");
  }

  @Test
  void pythonStringMethods() {
    ChatTemplate t =
        ChatTemplate.jinja(
            "{% set c = messages[0].content %}{{ c.startswith('<a>') }} {{ c.endswith(('x',"
                + " '</a>')) }} [{{ c.split('</a>')[-1].lstrip('\\n"
                + "') }}] [{{ c.split('<a>')[0].rstrip('\\n"
                + "') }}] [{{ '  pad  '.strip() }}] {{ 'a b  c'.split() | length }} {{"
                + " 'aXbXc'.replace('X', '-', 1) }}",
            null, null);
    assertThat(t.render(List.of(ChatMessage.user("<a>x</a>\n\ntail")), true))
        .isEqualTo("True False [tail] [] [pad] 3 a-bXc"); // Python's str(True), as jinja2 prints
  }

  @Test
  void slicesAndNamespaces() {
    ChatTemplate t =
        ChatTemplate.jinja(
            "{% set ns = namespace(last=messages|length - 1) %}"
                + "{% for m in messages[::-1] %}{{ m.content }}{% endfor %}:{{ ns.last }}",
            null, null);
    assertThat(
            t.render(
                List.of(ChatMessage.user("a"), ChatMessage.assistant("b"), ChatMessage.user("c")),
                true))
        .isEqualTo("cba:2");
  }

  @Test
  void strftimeNowLikeTransformers() {
    java.time.LocalDate before = java.time.LocalDate.now();
    String year =
        ChatTemplate.jinja("{{ strftime_now('%Y') }}", null, null)
            .render(List.of(ChatMessage.user("x")), true);
    java.time.LocalDate after = java.time.LocalDate.now();
    assertThat(year).isIn(String.valueOf(before.getYear()), String.valueOf(after.getYear()));
  }

  @Test
  void loopControlsAndSlices() {
    ChatTemplate t =
        ChatTemplate.jinja(
            "{% for m in messages[1:] %}{% if m.role == 'assistant' %}{% break %}{% endif %}"
                + "{{ m.content }}{% endfor %}|{{ messages[-1].content }}",
            null, null);
    assertThat(
            t.render(
                List.of(
                    ChatMessage.system("s"),
                    ChatMessage.user("u"),
                    ChatMessage.assistant("a"),
                    ChatMessage.user("v")),
                true))
        .isEqualTo("u|v");
  }

  @Test
  void longContentIsRenderedWhole() throws IOException {
    String content = "0123456789 你好 🙂\n".repeat(40_000); // about 680k characters
    for (String model : List.of("llama3", "qwen3")) {
      String out = load(model).render(List.of(ChatMessage.user(content)), true);
      assertThat(out).contains(content.strip());
      assertThat(out.length()).isGreaterThan(content.length() - 10);
    }
  }

  @Test
  void rendersConcurrently() throws Exception {
    ChatTemplate qwen = load("qwen3");
    String golden = resource(GOLDEN + "qwen3/multi_turn.txt");
    List<ChatMessage> messages =
        List.of(
            ChatMessage.system("Answer briefly."),
            ChatMessage.user("What is the capital of France?"),
            ChatMessage.assistant("Paris."),
            ChatMessage.user("And of Japan?"));
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(8);
    try {
      List<java.util.concurrent.Future<String>> results = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        results.add(pool.submit(() -> qwen.render(messages, true)));
      }
      for (java.util.concurrent.Future<String> f : results) {
        assertThat(f.get(1, java.util.concurrent.TimeUnit.MINUTES)).isEqualTo(golden);
      }
    } finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(1, java.util.concurrent.TimeUnit.MINUTES)).isTrue();
    }
  }

  private static ChatTemplate load(String model) throws IOException {
    JsonNode config =
        JSON.readTree(TestModels.dir(model).resolve("tokenizer_config.json").toFile());
    return ChatTemplate.jinja(
        config.get("chat_template").asText(),
        config.path("bos_token").isTextual() ? config.get("bos_token").asText() : null,
        config.path("eos_token").isTextual() ? config.get("eos_token").asText() : null);
  }

  private static JsonNode readCases() throws IOException {
    return JSON.readTree(resource(GOLDEN + "cases.json"));
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = JinjaChatTemplateTest.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new AssertionError("missing test resource " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
