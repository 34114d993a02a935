package io.kvrouter.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A simulated worker running as its own process ({@code java -jar target/router.jar worker}) on
 * loopback, with its system port serving Prometheus metrics. Stopped by {@link #close()}.
 */
public final class WorkerProcess implements AutoCloseable {
  private static final Pattern READY = Pattern.compile("ready: .* on tcp://[^:]+:(\\d+)/");
  private static final Pattern SYSTEM = Pattern.compile("system port: http://[^:]+:(\\d+)");

  private final Process process;
  private final int port;
  private final int systemPort;
  private final List<String> output;

  private WorkerProcess(Process process, int port, int systemPort, List<String> output) {
    this.process = process;
    this.port = port;
    this.systemPort = systemPort;
    this.output = output;
  }

  /** The shaded jar built by {@code mvn package}; integration tests run after it. */
  public static Path routerJar() {
    Path jar = Path.of("target", "router.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("target/router.jar is missing: run mvn package first");
    }
    return jar;
  }

  public static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  public static WorkerProcess start(String model, int ttftMs, int itlMs) throws Exception {
    List<String> command =
        List.of(
            javaBinary(), "-Xmx256m", "-jar", routerJar().toString(), "worker",
            "--host", "127.0.0.1", "--port", "0", "--system-port", "0",
            "--model-name", model, "--ttft-ms", String.valueOf(ttftMs),
            "--itl-ms", String.valueOf(itlMs));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> output = new ArrayList<>();
    CompletableFuture<int[]> ports = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              int systemPort = -1;
              try (BufferedReader lines =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = lines.readLine()) != null) {
                  synchronized (output) {
                    output.add(line);
                  }
                  Matcher system = SYSTEM.matcher(line);
                  if (system.find()) {
                    systemPort = Integer.parseInt(system.group(1));
                  }
                  Matcher ready = READY.matcher(line);
                  if (ready.find()) {
                    ports.complete(new int[] {Integer.parseInt(ready.group(1)), systemPort});
                  }
                }
              } catch (IOException e) {
                ports.completeExceptionally(e);
              }
              ports.completeExceptionally(new IllegalStateException("worker exited: " + output));
            },
            "worker-output");
    reader.setDaemon(true);
    reader.start();
    int[] found;
    try {
      found = ports.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      process.destroyForcibly();
      throw e;
    }
    return new WorkerProcess(process, found[0], found[1], output);
  }

  public int port() {
    return port;
  }

  /** {@code id=ID,address=127.0.0.1:PORT}, the router's --worker form. */
  public String workerSpec(String id) {
    return "id=" + id + ",address=127.0.0.1:" + port;
  }

  /** The sum of every sample of {@code metric} (all label sets) on the worker's system port. */
  public double metric(String metric) throws Exception {
    String text =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + systemPort + "/metrics"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    return Prometheus.sum(text, metric);
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
