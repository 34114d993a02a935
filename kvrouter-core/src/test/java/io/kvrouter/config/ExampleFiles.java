package io.kvrouter.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's example configuration files, in its {@code config/} folder: tests run in the
 * module's folder under Maven, in the repository's from some IDEs.
 */
final class ExampleFiles {
  private ExampleFiles() {}

  static Path of(String name) {
    Path here = Path.of("config", name);
    return Files.exists(here) ? here : Path.of("..", "config", name);
  }
}
