package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One small template per language feature, each with the output (or the error) Python's Jinja2
 * gives under Hugging Face's settings: {@code golden/jinja-snippets.json}, written by {@code
 * scripts/golden/jinja_snippets.py}. Errors compare as {@code Type: message}, except syntax errors,
 * whose wording differs from Jinja2's and which compare by type only.
 */
class JinjaSnippetsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Clock CLOCK =
      Clock.fixed(
          LocalDateTime.parse("2025-03-14T15:09:26").toInstant(ZoneOffset.UTC), ZoneOffset.UTC);

  static Stream<Arguments> snippets() throws IOException {
    JsonNode all;
    try (InputStream in =
        JinjaSnippetsTest.class.getResourceAsStream("/golden/jinja-snippets.json")) {
      all = JSON.readTree(in);
    }
    List<Arguments> args = new ArrayList<>();
    for (JsonNode s : all) {
      args.add(Arguments.of(s.get("feature").asText(), s.get("template").asText(), s));
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("snippets")
  @SuppressWarnings("unchecked")
  void rendersLikePythonJinja2(String feature, String source, JsonNode snippet) {
    Map<String, Object> vars = JSON.convertValue(snippet.get("vars"), Map.class);
    if (snippet.has("output")) {
      assertThat(JinjaTemplate.parse(source, CLOCK).render(vars))
          .isEqualTo(snippet.get("output").asText());
      return;
    }
    String expected = snippet.get("error").asText();
    try {
      String out = JinjaTemplate.parse(source, CLOCK).render(vars);
      fail("expected the error <" + expected + "> but rendered <" + out + ">");
    } catch (TemplateError e) {
      if (e.kind().equals("TemplateSyntaxError")) {
        assertThat(expected).startsWith("TemplateSyntaxError: ");
      } else {
        String got = e.raisedByTemplate() ? e.pythonMessage() : e.kind() + ": " + e.pythonMessage();
        assertThat(got).isEqualTo(expected);
      }
    }
  }
}
