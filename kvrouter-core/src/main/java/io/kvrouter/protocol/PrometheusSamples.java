package io.kvrouter.protocol;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The samples of a Prometheus text exposition ({@code name{label="value",…} number}), as plain
 * engines' {@code /metrics} write them: comments and malformed lines are skipped, label values
 * unescaped ({@code \\}, {@code \"}, {@code \n}).
 */
public final class PrometheusSamples {
  private PrometheusSamples() {}

  /** One sample. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  /** The samples whose name starts with {@code prefix}, in order. */
  public static List<Sample> parse(String exposition, String prefix) {
    List<Sample> samples = new ArrayList<>();
    for (String raw : exposition.split("\n")) {
      String line = raw.strip();
      if (!line.startsWith(prefix)) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      if (space < 0) {
        continue;
      }
      boolean labelled = brace >= 0 && brace < space;
      String name = labelled ? line.substring(0, brace) : line.substring(0, space);
      Map<String, String> labels =
          labelled ? labels(line.substring(brace + 1, line.lastIndexOf('}', space))) : Map.of();
      try {
        samples.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
      } catch (NumberFormatException e) {
        // not a sample line
      }
    }
    return samples;
  }

  /** {@code a="x",b="y"} as a map. */
  public static Map<String, String> labels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    int i = 0;
    while (i < text.length()) {
      int eq = text.indexOf('=', i);
      if (eq < 0 || eq + 1 >= text.length() || text.charAt(eq + 1) != '"') {
        break;
      }
      String key = text.substring(i, eq).strip();
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      for (; j < text.length() && text.charAt(j) != '"'; j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          char next = text.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      labels.put(key, value.toString());
      i = j + 1;
      while (i < text.length() && (text.charAt(i) == ',' || text.charAt(i) == ' ')) {
        i++;
      }
    }
    return labels;
  }
}
