package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvrouter.testing.RawHttp;
import io.kvrouter.testing.WorkerProcess;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A router process that runs out of file descriptors ({@code ulimit -n} below a connection cap set
 * too high, which it warns about at startup). Idle clients take every descriptor while a request is
 * inside; the request then cannot reach its worker and gets 503, but the worker is not blamed: it
 * is never marked unhealthy, and once the clients leave the next request is served at once. Twice:
 * before any connection to the worker is pooled (opening one fails: "Too many open files"), and
 * with one pooled (the worker takes the request but cannot call the router back, which cannot
 * accept).
 */
class DescriptorLimitIT {
  private static final int FILE_LIMIT = 1024;
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":2,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private int port;
  private Path output;
  private final List<Socket> idle = new ArrayList<>();

  private static String chat(int bodyBytes) {
    return "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + "Content-Length: "
        + CHAT.length()
        + "\r\n\r\n"
        + CHAT.substring(0, bodyBytes);
  }

  @Test
  void outOfDescriptors_requestsFail_butTheWorkerIsNotBlamed(@TempDir Path dir) throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    output = dir.resolve("router.out");
    String command =
        String.format(
            "ulimit -n %d && exec '%s' -jar '%s' --mock-workers 1 --http-host 127.0.0.1"
                + " --http-port %d --http-max-connections 5000 --http-header-timeout-secs 600"
                + " --http-body-timeout-secs 600 --http-idle-timeout-secs 600",
            FILE_LIMIT, WorkerProcess.javaBinary(), WorkerProcess.routerJar(), port);
    Process router =
        new ProcessBuilder("bash", "-c", command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    try {
      await().atMost(BOUND).until(() -> log().contains("kvrouter serving"));
      assertThat(log())
          .contains("open-file limit (" + FILE_LIMIT + ") is below --http-max-connections (5000)");

      outOfDescriptors("cannot connect");
      outOfDescriptors("did not open its response stream");
      assertThat(log()).doesNotContain("marked unhealthy");
    } finally {
      freeDescriptors();
      router.destroy();
      if (!router.waitFor(30, TimeUnit.SECONDS)) {
        router.destroyForcibly();
      }
    }
  }

  /**
   * Connections waiting in the kernel for the router to accept them on {@link #port}: the receive
   * queue of the listening socket in /proc/net/tcp or tcp6 (the JDK's sockets are IPv6 ones unless
   * told otherwise; hexadecimal fields: local address:port, ..., state 0A = LISTEN,
   * tx_queue:rx_queue).
   */
  private int acceptQueueLength() throws IOException {
    String localPort = String.format(":%04X", port);
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length > 4 && fields[1].endsWith(localPort) && fields[3].equals("0A")) {
          return Integer.parseInt(fields[4].substring(fields[4].indexOf(':') + 1), 16);
        }
      }
    }
    throw new IllegalStateException("no listening socket on port " + port + " in /proc/net");
  }

  private String log() throws IOException {
    return Files.readString(output);
  }

  /**
   * Takes every descriptor of the router with idle connections while a request is inside, lets the
   * request go on and expects 503 with {@code failure} in its message; then frees the descriptors
   * and checks that the worker is healthy and serves the next request.
   */
  private void outOfDescriptors(String failure) throws Exception {
    int acceptFailures = occurrences(log(), "Too many open files");
    try (RawHttp inside = RawHttp.connect(port)) {
      // in before the descriptors run out: a request whose last body byte is still to come
      assertThat(inside.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND).status())
          .isEqualTo(200);
      inside.send(chat(CHAT.length() - 1));
      while (occurrences(log(), "Too many open files") == acceptFailures) {
        assertThat(idle.size()).as("connections opened").isLessThan(4 * FILE_LIMIT);
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        idle.add(socket);
        if (idle.size() > FILE_LIMIT / 2) {
          // near the limit, one connection at a time: the router has taken it (its accept queue
          // is empty) or has said it cannot (logged), whatever the machine's load
          await()
              .atMost(BOUND)
              .pollDelay(Duration.ZERO)
              .pollInterval(Duration.ofMillis(2))
              .until(
                  () ->
                      acceptQueueLength() == 0
                          || occurrences(log(), "Too many open files") > acceptFailures);
        }
      }
      RawHttp.Reply reply = inside.send(CHAT.substring(CHAT.length() - 1)).response(BOUND);
      assertThat(reply.status()).as(reply.text()).isEqualTo(503);
      // the client gets the fixed message; the cause is in the router's log under the request id
      String message = reply.error().getString("message");
      String requestId =
          message.substring(message.lastIndexOf("request id ") + 11, message.length() - 1);
      await()
          .atMost(BOUND)
          .until(
              () ->
                  log()
                      .lines()
                      .anyMatch(
                          l ->
                              l.contains(requestId)
                                  && l.contains(failure)
                                  && l.contains("the router is out of file descriptors")));
    }
    freeDescriptors();
    try (RawHttp after = RawHttp.connect(port)) {
      JsonObject workers =
          after.send("GET /router/workers HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND).json();
      assertThat(workers.getJsonArray("workers").getJsonObject(0).getBoolean("healthy")).isTrue();
      RawHttp.Reply served = after.send(chat(CHAT.length())).response(BOUND);
      assertThat(served.status()).as(served.text()).isEqualTo(200);
    }
  }

  private void freeDescriptors() {
    for (Socket socket : idle) {
      try {
        socket.close();
      } catch (IOException ignored) {
        // closing anyway
      }
    }
    idle.clear();
  }

  private static int occurrences(String text, String part) {
    int count = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
      count++;
    }
    return count;
  }
}
