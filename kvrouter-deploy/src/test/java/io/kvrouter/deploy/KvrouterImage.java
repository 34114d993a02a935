package io.kvrouter.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The router's image, built once per test run from docker/Dockerfile on the registry-free base
 * {@code scripts/test} names in {@code kvrouter.docker.base}.
 */
final class KvrouterImage {
  static final String NAME = "kvrouter:it";
  private static boolean built;

  private KvrouterImage() {}

  /** Builds it unless this run did already; fails with docker's output. */
  static synchronized String build() throws Exception {
    if (built) {
      return NAME;
    }
    Process build =
        new ProcessBuilder(
                "docker",
                "build",
                "-q",
                "-f",
                "docker/Dockerfile",
                "--build-arg",
                "BASE_IMAGE=" + System.getProperty("kvrouter.docker.base"),
                "-t",
                NAME,
                ".")
            .directory(repository().toFile())
            .redirectErrorStream(true)
            .start();
    String output = new String(build.getInputStream().readAllBytes());
    assertThat(build.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(build.exitValue()).as(output).isZero();
    built = true;
    return NAME;
  }

  /** The repository's root, the build context. */
  static Path repository() {
    return Path.of("..").toAbsolutePath().normalize();
  }
}
