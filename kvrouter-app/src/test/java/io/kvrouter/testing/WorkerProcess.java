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
  private static final Pattern READY =
      Pattern.compile("ready: .* on (?:tcp|https?)://[^:]+:(\\d+)");
  private static final Pattern SYSTEM = Pattern.compile("system port: http://[^:]+:(\\d+)");
  private static final Pattern KV_EVENTS =
      Pattern.compile(
          "kv events: tcp://[^:]+:(\\d+)(?:, replay tcp://[^:]+:(\\d+))?"
              + "(?: \\(dynamo\\), load tcp://[^:]+:(\\d+))?");

  private final Process process;
  private final int port;
  private final int systemPort;
  private final int kvEventsPort;
  private final int kvReplayPort;

  /** Its Dynamo load publisher's port; -1 unless it publishes Dynamo's format on ZMQ. */
  private final int kvMetricsPort;

  private final List<String> output;

  private WorkerProcess(Process process, int[] ports, List<String> output) {
    this.process = process;
    this.port = ports[0];
    this.systemPort = ports[1];
    this.kvEventsPort = ports[2];
    this.kvReplayPort = ports[3];
    this.kvMetricsPort = ports[4];
    this.output = output;
  }

  /**
   * The shaded jar built by {@code mvn package} (the {@code kvrouter.jar} system property, which
   * the build sets to the repository's {@code target/router.jar}); integration tests run after it.
   */
  public static Path routerJar() {
    Path jar = Path.of(System.getProperty("kvrouter.jar", "../target/router.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: run mvn package first");
    }
    return jar;
  }

  public static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  public static WorkerProcess start(String model, int ttftMs, int itlMs) throws Exception {
    return start(model, ttftMs, itlMs, List.of("--port", "0"));
  }

  /** A worker with {@code options} added to its command line ({@code --port} among them). */
  public static WorkerProcess start(String model, int ttftMs, int itlMs, List<String> options)
      throws Exception {
    return start(model, ttftMs, itlMs, options, java.util.Map.of());
  }

  /** A worker with {@code options}, and {@code env} added to its environment. */
  public static WorkerProcess start(
      String model, int ttftMs, int itlMs, List<String> options, java.util.Map<String, String> env)
      throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                javaBinary(),
                "-Xmx256m",
                "-jar",
                routerJar().toString(),
                "worker",
                "--system-port",
                "0",
                "--model-name",
                model,
                "--ttft-ms",
                String.valueOf(ttftMs),
                "--itl-ms",
                String.valueOf(itlMs)));
    if (!options.contains("--host")) {
      command.addAll(List.of("--host", "127.0.0.1"));
    }
    command.addAll(options);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    List<String> output = new ArrayList<>();
    CompletableFuture<int[]> ports = new CompletableFuture<>();
    Thread reader =
        new Thread(
            () -> {
              int systemPort = -1;
              int eventsPort = -1;
              int replayPort = -1;
              int metricsPort = -1;
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
                  Matcher events = KV_EVENTS.matcher(line);
                  if (events.find()) {
                    eventsPort = Integer.parseInt(events.group(1));
                    replayPort = events.group(2) == null ? -1 : Integer.parseInt(events.group(2));
                    metricsPort = events.group(3) == null ? -1 : Integer.parseInt(events.group(3));
                  }
                  Matcher ready = READY.matcher(line);
                  if (ready.find()) {
                    ports.complete(
                        new int[] {
                          Integer.parseInt(ready.group(1)),
                          systemPort,
                          eventsPort,
                          replayPort,
                          metricsPort
                        });
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
    return new WorkerProcess(process, found, output);
  }

  public int port() {
    return port;
  }

  /** The port of its KV event publisher; -1 when it publishes none. */
  /** The last {@code lines} lines the worker printed, for a failing test's message. */
  public String recentOutput(int lines) {
    synchronized (output) {
      return String.join("\n", output.subList(Math.max(0, output.size() - lines), output.size()));
    }
  }

  public int kvEventsPort() {
    return kvEventsPort;
  }

  /** The port of its Dynamo load publisher; -1 unless it publishes Dynamo's format on ZMQ. */
  public int kvMetricsPort() {
    return kvMetricsPort;
  }

  /** The port of its KV event replay socket; -1 when it has none. */
  public int kvReplayPort() {
    return kvReplayPort;
  }

  /**
   * {@code id=ID,address=127.0.0.1:PORT}, the router's --worker form, with its KV event endpoints
   * when it publishes on ZMQ (and {@code events-format=dynamo} with its load endpoint when it does
   * so in Dynamo's format).
   */
  public String workerSpec(String id) {
    String spec = "id=" + id + ",address=127.0.0.1:" + port;
    if (kvEventsPort >= 0) {
      spec += ",kv-events=tcp://127.0.0.1:" + kvEventsPort;
    }
    if (kvReplayPort >= 0) {
      spec += ",kv-replay=tcp://127.0.0.1:" + kvReplayPort;
    }
    if (kvMetricsPort >= 0) {
      spec += ",events-format=dynamo,kv-metrics=tcp://127.0.0.1:" + kvMetricsPort;
    }
    return spec;
  }

  /**
   * {@code id=ID,url=http://127.0.0.1:PORT}, the router's --worker form for a worker started with
   * {@code --api openai}, with its vLLM KV event endpoints when it publishes them.
   */
  public String httpWorkerSpec(String id) {
    String spec = "id=" + id + ",url=http://127.0.0.1:" + port;
    if (kvEventsPort >= 0) {
      spec += ",kv-events=tcp://127.0.0.1:" + kvEventsPort;
    }
    if (kvReplayPort >= 0) {
      spec += ",kv-replay=tcp://127.0.0.1:" + kvReplayPort;
    }
    return spec;
  }

  /** Its KV cache's state from the system port's {@code /kv/state}. */
  public io.vertx.core.json.JsonObject kvState() throws Exception {
    return kvState(0);
  }

  /** The KV cache state of its data-parallel rank {@code dpRank}. */
  public io.vertx.core.json.JsonObject kvState(int dpRank) throws Exception {
    return new io.vertx.core.json.JsonObject(systemPort("/kv/state?dp_rank=" + dpRank));
  }

  /** The sum of the samples of {@code metric} with every one of {@code labels}. */
  public double metric(String metric, java.util.Map<String, String> labels) throws Exception {
    return Prometheus.sum(systemPort("/metrics"), metric, labels);
  }

  /** The sum of every sample of {@code metric} (all label sets) on the worker's system port. */
  public double metric(String metric) throws Exception {
    return Prometheus.sum(systemPort("/metrics"), metric);
  }

  /**
   * GETs {@code path} over HTTP/1.1: the JDK client's default h2c upgrade once read a
   * several-megabyte {@code /kv/state} answer as HTTP/2 frames and failed the test.
   */
  private String systemPort(String path) throws Exception {
    return HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + systemPort + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Sends SIGTERM and returns the exit status once the process has exited. */
  public int terminate() throws Exception {
    sigterm(process);
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException(
          "the worker did not exit within 30 s of SIGTERM:\n" + recentOutput(20));
    }
    return process.exitValue();
  }

  /**
   * Sends SIGTERM to {@code process}: {@link Process#destroy} sends it too, but also closes the
   * streams the test reads the process's last words from.
   */
  public static void sigterm(Process process) throws Exception {
    signal(process, "TERM");
  }

  /**
   * Stops the process with SIGSTOP, as a hung worker: its sockets stay open and the kernel still
   * accepts connections on its port, but nothing reads or answers until {@link #resume()}.
   */
  public void suspend() throws Exception {
    signal(process, "STOP");
  }

  /**
   * Kills the process with SIGKILL, as a crash: no shutdown, its connections are reset by the
   * kernel. Returns once it has exited.
   */
  public void kill() throws Exception {
    signal(process, "KILL");
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("the worker did not exit within 30 s of SIGKILL");
    }
  }

  /** Continues a {@link #suspend suspended} process (SIGCONT). */
  public void resume() throws Exception {
    signal(process, "CONT");
  }

  private static void signal(Process process, String name) throws Exception {
    // the shell's own kill: no dependency on a kill binary (procps)
    Process kill =
        new ProcessBuilder("sh", "-c", "kill -" + name + " " + process.pid())
            .redirectErrorStream(true)
            .start();
    String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed: " + said);
    }
  }

  /** Ends the process; a suspended one is continued first, so that it can shut down. */
  @Override
  public void close() throws Exception {
    try {
      resume();
    } catch (IllegalStateException e) {
      if (process.isAlive()) {
        throw e;
      } // it had exited already: nothing to continue
    }
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
