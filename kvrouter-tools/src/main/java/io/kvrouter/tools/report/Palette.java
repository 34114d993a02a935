package io.kvrouter.tools.report;

import java.util.List;

/**
 * The report's series colours: a fixed list (Tableau 10), so a policy or worker keeps its colour
 * from one run's report to the next. Indexes past the end wrap around.
 */
final class Palette {
  private static final List<String> COLOURS =
      List.of(
          "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
          "#9c755f", "#bab0ac");

  private Palette() {}

  static String colour(int index) {
    return COLOURS.get(Math.floorMod(index, COLOURS.size()));
  }
}
