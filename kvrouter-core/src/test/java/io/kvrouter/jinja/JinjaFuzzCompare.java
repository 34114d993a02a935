package io.kvrouter.jinja;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.preprocess.TestModels;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Not a test: compares the renderer with the random renderings of {@code
 * scripts/golden/chat_templates_fuzz.py} and prints the mismatches (see the script for the
 * commands). Exits with status 1 when any differ.
 */
public final class JinjaFuzzCompare {
  private JinjaFuzzCompare() {}

  @SuppressWarnings("unchecked")
  public static void main(String[] args) throws IOException {
    ObjectMapper json = new ObjectMapper();
    JsonNode all =
        json.readTree(new File(args.length > 0 ? args[0] : "target/chat-template-fuzz.json"));
    JsonNode sources;
    try (InputStream in =
        JinjaFuzzCompare.class.getResourceAsStream("/golden/chat-templates/sources.json")) {
      sources = json.readTree(in);
    }
    Clock clock =
        Clock.fixed(
            LocalDateTime.parse("2025-03-14T15:09:26").toInstant(ZoneOffset.UTC), ZoneOffset.UTC);
    Map<String, JinjaTemplate> templates = new HashMap<>();
    int ok = 0;
    Map<String, Integer> bad = new TreeMap<>();
    for (JsonNode e : all) {
      String model = e.get("model").asText();
      JsonNode c = e.get("case");
      JinjaTemplate template = templates.get(model);
      if (template == null) {
        template = JinjaTemplate.parse(source(json, model), clock);
        templates.put(model, template);
      }
      Map<String, Object> vars = new LinkedHashMap<>();
      vars.put("messages", json.convertValue(c.get("messages"), Object.class));
      vars.put("tools", c.has("tools") ? json.convertValue(c.get("tools"), Object.class) : null);
      vars.put("documents", null);
      vars.put("add_generation_prompt", c.get("add_generation_prompt").asBoolean());
      JsonNode special =
          e.has("variables") ? e.get("variables") : sources.get(model).get("variables");
      vars.putAll(json.convertValue(special, Map.class));
      if (c.has("chat_template_kwargs")) {
        vars.putAll(json.convertValue(c.get("chat_template_kwargs"), Map.class));
      }
      String got;
      try {
        got = "OK:" + template.render(vars);
      } catch (TemplateError err) {
        got =
            "ERR:"
                + (err.raisedByTemplate()
                    ? err.pythonMessage()
                    : err.kind() + ": " + err.pythonMessage());
      }
      String want =
          e.has("output") ? "OK:" + e.get("output").asText() : "ERR:" + e.get("error").asText();
      if (got.equals(want)) {
        ok++;
      } else if (bad.merge(model, 1, Integer::sum) <= 3) {
        System.out.println(
            "MISMATCH "
                + model
                + " #"
                + e.get("idx")
                + "\n  python: "
                + want.replace("\n", "\\n")
                + "\n  java:   "
                + got.replace("\n", "\\n"));
      }
    }
    System.out.println("identical: " + ok + ", different: " + bad);
    if (!bad.isEmpty()) {
      System.exit(1);
    }
  }

  private static String source(ObjectMapper json, String model) throws IOException {
    Path dir = TestModels.root().resolve(model);
    if (Files.isRegularFile(dir.resolve("chat_template.jinja"))) {
      return Files.readString(dir.resolve("chat_template.jinja"), StandardCharsets.UTF_8);
    }
    JsonNode t = json.readTree(dir.resolve("tokenizer_config.json").toFile()).get("chat_template");
    if (!t.isTextual()) {
      throw new IllegalStateException(model + ": named chat templates are not handled here");
    }
    return t.asText();
  }
}
