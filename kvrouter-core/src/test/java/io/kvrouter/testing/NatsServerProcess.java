package io.kvrouter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * A real {@code nats-server} process for tests, on 127.0.0.1 only (never all interfaces, which is
 * why it is started here rather than with jnats-server-runner) and a free port, optionally with
 * JetStream and a temporary store directory.
 *
 * <p>{@link #stop()} kills it the way a crash would (SIGKILL), and {@link #restart()} starts it
 * again on the <em>same</em> port and store, so clients' reconnect logic can be tested. {@link
 * #close()} stops it and deletes the store. A JVM shutdown hook kills it too, in case a test run is
 * aborted before {@code close()}.
 *
 * <p>The binary is taken from {@code -Dkvrouter.test.natsServer}, {@code $NATS_SERVER_BIN}, the
 * {@code PATH}, or Debian's {@code /usr/sbin/nats-server}, in that order; {@code scripts/test}
 * installs it with apt when it is missing.
 */
public final class NatsServerProcess implements AutoCloseable {
  private static final long READY_TIMEOUT_MILLIS = 15_000;

  private final Path binary;
  private final int port;
  private final Path storeDir;
  private final Path log;
  private final Path configFile;
  private final Thread shutdownHook;
  private Process process;

  private NatsServerProcess(Path binary, int port, Path storeDir, Path log, Path configFile) {
    this.binary = binary;
    this.port = port;
    this.storeDir = storeDir;
    this.log = log;
    this.configFile = configFile;
    this.shutdownHook = new Thread(this::kill, "nats-server-" + port + "-shutdown");
  }

  /** A core NATS server (no JetStream). */
  public static NatsServerProcess start() throws IOException {
    return start(false);
  }

  /** A server with JetStream, storing in a temporary directory that {@link #close()} deletes. */
  public static NatsServerProcess startWithJetStream() throws IOException {
    return start(true);
  }

  /**
   * A server with {@code config} (nats-server's configuration format: {@code tls {...}}, {@code
   * authorization {...}}, {@code operator}, ...) on loopback and a free port, with JetStream if
   * asked.
   */
  public static NatsServerProcess startWithConfig(String config, boolean jetStream)
      throws IOException {
    return start(jetStream, config);
  }

  private static NatsServerProcess start(boolean jetStream) throws IOException {
    return start(jetStream, null);
  }

  private static NatsServerProcess start(boolean jetStream, String config) throws IOException {
    Path binary = binary();
    Path work = Files.createTempDirectory("kvrouter-nats-");
    Path configFile = config == null ? null : Files.writeString(work.resolve("nats.conf"), config);
    NatsServerProcess server =
        new NatsServerProcess(
            binary,
            freePort(),
            jetStream ? work.resolve("store") : null,
            work.resolve("nats.log"),
            configFile);
    Runtime.getRuntime().addShutdownHook(server.shutdownHook);
    try {
      server.launch();
    } catch (IOException | RuntimeException e) {
      server.close();
      throw e;
    }
    return server;
  }

  /** {@code nats://127.0.0.1:PORT}. */
  public String url() {
    return "nats://127.0.0.1:" + port;
  }

  /** The server as the NATS clients take it: {@link #url()}, anonymous. */
  public io.kvrouter.config.NatsServer server() {
    return io.kvrouter.config.NatsServer.plain(url());
  }

  public int port() {
    return port;
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Kills the server at once (SIGKILL), as a crash would; clients see their connection drop. */
  public synchronized void stop() {
    kill();
  }

  /** Starts the server again on the same port (and JetStream store), after {@link #stop()}. */
  public synchronized void restart() throws IOException {
    kill();
    launch();
  }

  /** Kills the server and deletes its store and log. */
  @Override
  public synchronized void close() {
    kill();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run
    }
    deleteRecursively(log.getParent());
  }

  private synchronized void launch() throws IOException {
    List<String> command =
        new ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p", String.valueOf(port)));
    if (configFile != null) {
      command.addAll(List.of("-c", configFile.toString()));
    }
    if (storeDir != null) {
      command.addAll(List.of("-js", "-sd", storeDir.toString()));
    }
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    awaitReady();
  }

  /** Waits until the server answers a TCP connection with its {@code INFO} line. */
  private void awaitReady() {
    try {
      Awaitility.await()
          .atMost(Duration.ofMillis(READY_TIMEOUT_MILLIS))
          .pollInterval(Duration.ofMillis(20))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException(
                      "nats-server exited with "
                          + process.exitValue()
                          + " on port "
                          + port
                          + ":\n"
                          + log());
                }
                return answersInfo();
              });
    } catch (ConditionTimeoutException e) {
      kill();
      throw new IllegalStateException(
          "nats-server did not accept connections on port "
              + port
              + " within "
              + READY_TIMEOUT_MILLIS
              + " ms:\n"
              + log());
    }
  }

  private boolean answersInfo() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
      socket.setSoTimeout(1_000);
      InputStream in = socket.getInputStream();
      byte[] head = in.readNBytes(4);
      return "INFO".equals(new String(head, StandardCharsets.US_ASCII));
    } catch (IOException notYet) {
      return false;
    }
  }

  /** The server's output so far, for failure messages. */
  public String log() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  private synchronized void kill() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("nats-server on port " + port + " did not die");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static Path binary() {
    List<String> candidates = new ArrayList<>();
    String property = System.getProperty("kvrouter.test.natsServer");
    if (property != null && !property.isBlank()) {
      candidates.add(property);
    }
    String env = System.getenv("NATS_SERVER_BIN");
    if (env != null && !env.isBlank()) {
      candidates.add(env);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, "nats-server").toString());
        }
      }
    }
    candidates.add("/usr/sbin/nats-server");
    for (String candidate : candidates) {
      Path p = Path.of(candidate);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException(
        "nats-server not found (looked at -Dkvrouter.test.natsServer, $NATS_SERVER_BIN, the PATH"
            + " and /usr/sbin/nats-server). Install it: 'apt-get install -y nats-server' (scripts/test"
            + " does this when run as root).");
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temp dir left behind is harmless
    }
  }
}
