package io.kvrouter.app;

import java.util.Map;
import java.util.OptionalInt;

/** A subcommand of {@code router.jar} ({@code worker}, {@code bench}), run after parsing. */
interface Subcommand {
  /**
   * Runs it. Returns the exit code when the process should exit now, or empty when it started a
   * server that keeps the process alive.
   */
  OptionalInt run(Map<String, String> env);
}
