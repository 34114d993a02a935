package io.kvrouter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
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
 * A real single-member {@code etcd} for tests, on 127.0.0.1 only, with free client and peer ports
 * and a temporary data directory.
 *
 * <p>{@link #stop()} kills it as a crash would (SIGKILL); {@link #restart()} starts it again on the
 * same ports and data (its keys, revisions and leases survive, as they do a real restart); {@link
 * #restartEmpty()} starts it on the same ports with the data wiped, as an etcd that lost its disk.
 * {@link #close()} stops it and deletes the data; a JVM shutdown hook kills it too.
 *
 * <p>The binary is taken from {@code -Dkvrouter.test.etcd}, {@code $ETCD_BIN}, the {@code PATH}, or
 * Debian's {@code /usr/bin/etcd}, in that order; {@code scripts/test} installs Debian's {@code
 * etcd-server} when it is missing.
 */
public final class EtcdProcess implements AutoCloseable {
  private static final long READY_TIMEOUT_MILLIS = 30_000;

  private final Path binary;
  private final int clientPort;
  private final int peerPort;
  private final Path work;
  private final TestCertificates tls;
  private final Thread shutdownHook;
  private Process process;

  private EtcdProcess(Path binary, int clientPort, int peerPort, Path work, TestCertificates tls) {
    this.binary = binary;
    this.clientPort = clientPort;
    this.peerPort = peerPort;
    this.work = work;
    this.tls = tls;
    this.shutdownHook = new Thread(this::kill, "etcd-" + clientPort + "-shutdown");
  }

  public static EtcdProcess start() throws IOException {
    return start(null);
  }

  /**
   * etcd serving its clients over TLS with {@code tls}'s server certificate, and asking each client
   * for a certificate signed by {@code tls}'s CA (mutual TLS).
   */
  public static EtcdProcess startWithTls(TestCertificates tls) throws IOException {
    return start(tls);
  }

  private static EtcdProcess start(TestCertificates tls) throws IOException {
    Path binary = binary();
    int base = FreePorts.consecutive(2);
    EtcdProcess etcd =
        new EtcdProcess(binary, base, base + 1, Files.createTempDirectory("kvrouter-etcd-"), tls);
    Runtime.getRuntime().addShutdownHook(etcd.shutdownHook);
    try {
      etcd.launch();
    } catch (IOException | RuntimeException e) {
      etcd.close();
      throw e;
    }
    return etcd;
  }

  /** {@code http://127.0.0.1:PORT} ({@code https://} with TLS), the client URL. */
  public String url() {
    return (tls == null ? "http" : "https") + "://127.0.0.1:" + clientPort;
  }

  public URI uri() {
    return URI.create(url());
  }

  public boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** Kills etcd at once (SIGKILL), as a crash would. */
  public synchronized void stop() {
    kill();
  }

  /** Starts etcd again on the same ports and data, after {@link #stop()}. */
  public synchronized void restart() throws IOException {
    kill();
    launch();
  }

  /** Starts etcd again on the same ports with its data wiped: every key and lease is gone. */
  public synchronized void restartEmpty() throws IOException {
    kill();
    deleteRecursively(dataDir());
    launch();
  }

  @Override
  public synchronized void close() {
    kill();
    try {
      Runtime.getRuntime().removeShutdownHook(shutdownHook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or has run
    }
    deleteRecursively(work);
  }

  private Path dataDir() {
    return work.resolve("data");
  }

  private Path log() {
    return work.resolve("etcd.log");
  }

  private synchronized void launch() throws IOException {
    String peer = "http://127.0.0.1:" + peerPort;
    List<String> command =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--name",
                "kvrouter-test",
                "--data-dir",
                dataDir().toString(),
                "--listen-client-urls",
                url(),
                "--advertise-client-urls",
                url(),
                "--listen-peer-urls",
                peer,
                "--initial-advertise-peer-urls",
                peer,
                "--initial-cluster",
                "kvrouter-test=" + peer,
                "--initial-cluster-state",
                "new"));
    if (tls != null) {
      command.addAll(
          List.of(
              "--cert-file",
              tls.serverCert().toString(),
              "--key-file",
              tls.serverKey().toString(),
              "--trusted-ca-file",
              tls.ca().toString(),
              "--client-cert-auth"));
    }
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
            .start();
    awaitHealthy();
  }

  private void awaitHealthy() {
    try {
      Awaitility.await()
          .atMost(Duration.ofMillis(READY_TIMEOUT_MILLIS))
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                if (!process.isAlive()) {
                  throw new IllegalStateException(
                      "etcd exited with " + process.exitValue() + ":\n" + log(200));
                }
                return healthy();
              });
    } catch (ConditionTimeoutException e) {
      kill();
      throw new IllegalStateException(
          "etcd was not healthy on "
              + url()
              + " within "
              + READY_TIMEOUT_MILLIS
              + " ms:\n"
              + log(200));
    }
  }

  /** Plain etcd answers {@code /health}; with TLS (a client certificate needed) an open port. */
  private boolean healthy() {
    if (tls != null) {
      try (java.net.Socket socket = new java.net.Socket()) {
        socket.connect(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), clientPort),
            500);
        return true;
      } catch (IOException notYet) {
        return false;
      }
    }
    try {
      HttpURLConnection c =
          (HttpURLConnection) URI.create(url() + "/health").toURL().openConnection();
      c.setConnectTimeout(500);
      c.setReadTimeout(1_000);
      try (InputStream in = c.getInputStream()) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("\"true\"");
      } finally {
        c.disconnect();
      }
    } catch (IOException notYet) {
      return false;
    }
  }

  /** The last {@code lines} lines of etcd's output, for failure messages. */
  public String log(int lines) {
    try {
      if (!Files.exists(log())) {
        return "";
      }
      List<String> all = Files.readAllLines(log());
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
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
        throw new IllegalStateException("etcd on port " + clientPort + " did not die");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private static Path binary() {
    List<String> candidates = new ArrayList<>();
    String property = System.getProperty("kvrouter.test.etcd");
    if (property != null && !property.isBlank()) {
      candidates.add(property);
    }
    String env = System.getenv("ETCD_BIN");
    if (env != null && !env.isBlank()) {
      candidates.add(env);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(java.io.File.pathSeparator)) {
        if (!dir.isEmpty()) {
          candidates.add(Path.of(dir, "etcd").toString());
        }
      }
    }
    candidates.add("/usr/bin/etcd");
    for (String candidate : candidates) {
      Path p = Path.of(candidate);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return p;
      }
    }
    throw new IllegalStateException(
        "etcd not found (looked at -Dkvrouter.test.etcd, $ETCD_BIN, the PATH and /usr/bin/etcd)."
            + " Install it: 'apt-get install -y etcd-server' (scripts/test does this when run as"
            + " root).");
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
