package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.TestModels;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Renders every case of {@code golden/chat-templates/cases.json} with every model's real chat
 * template, with the inputs {@code scripts/golden/chat_templates.py} gave Python's Jinja2
 * (messages, tools, documents, add_generation_prompt, the special tokens of {@code sources.json},
 * the case's chat_template_kwargs, the fixed {@code strftime_now} time), and compares byte for byte
 * with the golden rendering, or with the golden error.
 */
class JinjaGoldenIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String GOLDEN = "/golden/chat-templates/";

  static Stream<Arguments> cases() throws IOException {
    JsonNode spec = json("cases.json");
    List<Arguments> args = new ArrayList<>();
    for (JsonNode model : spec.get("models")) {
      Iterator<Map.Entry<String, JsonNode>> it = spec.get("cases").fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> c = it.next();
        JsonNode only = c.getValue().get("models");
        if (only != null) {
          boolean applies = false;
          for (JsonNode m : only) {
            applies |= m.asText().equals(model.asText());
          }
          if (!applies) {
            continue;
          }
        }
        args.add(Arguments.of(model.asText(), c.getKey()));
      }
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("cases")
  void rendersLikePythonJinja2(String model, String caseName) throws IOException {
    JsonNode spec = json("cases.json");
    JsonNode c = spec.get("cases").get(caseName);
    Clock clock =
        Clock.fixed(
            LocalDateTime.parse(spec.get("strftime_now").asText()).toInstant(ZoneOffset.UTC),
            ZoneOffset.UTC);
    JsonNode tools = c.get("tools");
    String source = templateSource(model, tools);
    JsonNode origin = json("sources.json").get(model);
    if (origin.has("sha256")) {
      assertThat(sha256(source))
          .as("the goldens were rendered from this template (sources.json)")
          .isEqualTo(origin.get("sha256").asText());
    }
    JinjaTemplate template = JinjaTemplate.parse(source, clock);

    Map<String, Object> vars = new LinkedHashMap<>();
    vars.put("messages", convert(c.get("messages")));
    vars.put("tools", convert(tools));
    vars.put("documents", convert(c.get("documents")));
    vars.put("add_generation_prompt", c.get("add_generation_prompt").asBoolean());
    Map<String, Object> special =
        JSON.convertValue(json("sources.json").get(model).get("variables"), Map.class);
    vars.putAll(special);
    if (c.has("chat_template_kwargs")) {
      vars.putAll(JSON.convertValue(c.get("chat_template_kwargs"), Map.class));
    }

    String ok = resource(GOLDEN + model + "/" + caseName + ".txt");
    String err = resource(GOLDEN + model + "/" + caseName + ".error.txt");
    if (ok != null) {
      assertThat(template.render(vars)).isEqualTo(ok);
    } else {
      try {
        String out = template.render(vars);
        fail("expected the error <" + err + "> but rendered:\n" + out);
      } catch (TemplateError e) {
        String got = e.raisedByTemplate() ? e.pythonMessage() : e.kind() + ": " + e.pythonMessage();
        assertThat(got).isEqualTo(err);
      }
    }
  }

  private static String sha256(String text) {
    try {
      return java.util.HexFormat.of()
          .formatHex(
              java.security.MessageDigest.getInstance("SHA-256")
                  .digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static Object convert(JsonNode node) {
    return node == null || node.isNull() ? null : JSON.convertValue(node, Object.class);
  }

  /** transformers' choice: chat_template.jinja, else tokenizer_config.json's (named) template. */
  private static String templateSource(String model, JsonNode tools) throws IOException {
    Path dir = TestModels.root().resolve(model);
    Path jinja = dir.resolve("chat_template.jinja");
    if (Files.isRegularFile(jinja)) {
      return Files.readString(jinja, StandardCharsets.UTF_8);
    }
    JsonNode t = JSON.readTree(dir.resolve("tokenizer_config.json").toFile()).get("chat_template");
    if (t.isTextual()) {
      return t.asText();
    }
    Map<String, String> named = new LinkedHashMap<>();
    for (JsonNode e : t) {
      named.put(e.get("name").asText(), e.get("template").asText());
    }
    if (tools != null && !tools.isNull() && named.containsKey("tool_use")) {
      return named.get("tool_use");
    }
    return named.get("default");
  }

  private static JsonNode json(String name) throws IOException {
    try (InputStream in = JinjaGoldenIT.class.getResourceAsStream(GOLDEN + name)) {
      return JSON.readTree(in);
    }
  }

  private static String resource(String path) throws IOException {
    try (InputStream in = JinjaGoldenIT.class.getResourceAsStream(path)) {
      return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
