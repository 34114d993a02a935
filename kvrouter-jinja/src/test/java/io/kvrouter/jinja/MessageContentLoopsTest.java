package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Which templates read a message's content as parts, by vLLM's rule: {@code
 * golden/content-formats.json}, written by {@code scripts/golden/content_formats.py} from Jinja2's
 * own syntax tree ("openai" = parts, "string" = one string).
 */
class MessageContentLoopsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static Stream<Arguments> templates() throws IOException {
    JsonNode all;
    try (InputStream in =
        MessageContentLoopsTest.class.getResourceAsStream("/golden/content-formats.json")) {
      all = JSON.readTree(in);
    }
    List<Arguments> args = new ArrayList<>();
    for (JsonNode t : all) {
      args.add(Arguments.of(t.get("format").asText(), t.get("template").asText()));
    }
    return args.stream();
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("templates")
  void detectsTheContentFormatAsVllmDoes(String format, String source) {
    assertThat(JinjaTemplate.parse(source).readsContentParts() ? "openai" : "string")
        .isEqualTo(format);
  }
}
