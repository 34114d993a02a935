package io.kvrouter.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.TimeUnit;

/**
 * Runs a script of {@code e2e/} on the test class path that drives a router with the official
 * {@code openai} npm client (installed by {@code scripts/install-test-clients} into {@code
 * $KVROUTER_TEST_CLIENTS}, default {@code ~/.cache/kvrouter/clients}) and prints its findings as
 * one JSON object.
 */
public final class NodeOpenAiClient {
  private NodeOpenAiClient() {}

  /**
   * Runs {@code script} with {@code baseUrl}, {@code model} and then {@code more} as its arguments;
   * returns what it printed.
   */
  public static JsonObject run(String script, String baseUrl, String model, String... more)
      throws Exception {
    String modules = System.getenv().getOrDefault("KVROUTER_TEST_CLIENTS", "");
    Path clients =
        modules.isEmpty()
            ? Path.of(System.getProperty("user.home"), ".cache", "kvrouter", "clients")
            : Path.of(modules);
    Path nodeModules = clients.resolve("node_modules");
    assertThat(nodeModules.resolve("openai")).as("run scripts/install-test-clients").isDirectory();
    ProcessBuilder node =
        new ProcessBuilder(command(scriptFile(script).toString(), baseUrl, model, more))
            .redirectError(ProcessBuilder.Redirect.INHERIT);
    node.environment().put("NODE_PATH", nodeModules.toString());
    Process process = node.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(out).isZero();
    return new JsonObject(out.trim());
  }

  private static java.util.List<String> command(
      String script, String baseUrl, String model, String... more) {
    java.util.List<String> command =
        new java.util.ArrayList<>(java.util.List.of("node", script, baseUrl, model));
    command.addAll(java.util.List.of(more));
    return command;
  }

  /** The script, copied out of the class path (it may be inside this module's test jar). */
  private static Path scriptFile(String script) throws IOException {
    try (InputStream in = NodeOpenAiClient.class.getResourceAsStream("/e2e/" + script)) {
      if (in == null) {
        throw new IllegalArgumentException("no test script e2e/" + script + " on the class path");
      }
      Path file = Files.createTempFile("kvrouter-e2e-", ".js");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    }
  }
}
