package io.kvrouter.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * docker/compose.yaml brought up with docker-compose, every part in its own container on the
 * project's bridge network: the Dynamo-style setup (two workers registering themselves in etcd, KV
 * events on NATS, a router finding them) and the plain-vLLM-style one (two engines over HTTP with
 * ZMQ events). Each router lists both its workers, healthy and with their events followed, and
 * answers a chat. NATS and etcd run from images {@code scripts/docker-infra} makes from Debian's
 * packages ({@code kvrouter.docker.nats}, {@code kvrouter.docker.etcd}), since no registry is
 * reachable here.
 */
@EnabledIfSystemProperty(named = "kvrouter.docker.etcd", matches = ".+")
class DockerComposeIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void bothSetups_serveChatsThroughTheirContainers() throws Exception {
    String image = KvrouterImage.build();
    int router = freePort();
    int vllmRouter = freePort();
    String project = "kvrouter-it-" + ProcessHandle.current().pid();
    Map<String, String> env =
        Map.of(
            "KVROUTER_IMAGE", image,
            "NATS_IMAGE", System.getProperty("kvrouter.docker.nats"),
            "ETCD_IMAGE", System.getProperty("kvrouter.docker.etcd"),
            "ROUTER_PORT", String.valueOf(router),
            "VLLM_ROUTER_PORT", String.valueOf(vllmRouter));
    try {
      compose(env, project, "--profile", "vllm", "up", "-d");
      for (int port : List.of(router, vllmRouter)) {
        await()
            .atMost(Duration.ofSeconds(120))
            .ignoreExceptions()
            .until(() -> followedWorkers(port) == 2);
        HttpResponse<String> chat =
            HTTP.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                    .header("content-type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"mock-model\",\"max_tokens\":3,\"messages\":"
                                + "[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(chat.statusCode()).as(chat.body()).isEqualTo(200);
      }
    } finally {
      compose(env, project, "--profile", "vllm", "down", "--timeout", "30");
    }
  }

  /** How many of the router's workers are healthy with their KV events followed. */
  private static long followedWorkers(int port) throws Exception {
    JsonNode workers =
        JSON.readTree(
                HTTP.send(
                        HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + "/router/workers"))
                            .build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body())
            .path("workers");
    long count = 0;
    for (JsonNode worker : workers) {
      if (worker.path("healthy").asBoolean()
          && worker.path("kv_events").path("state").asText().equals("following")) {
        count++;
      }
    }
    return count;
  }

  private static void compose(Map<String, String> env, String project, String... command)
      throws Exception {
    List<String> args =
        new ArrayList<>(List.of("docker-compose", "-f", "docker/compose.yaml", "-p", project));
    args.addAll(List.of(command));
    ProcessBuilder builder =
        new ProcessBuilder(args)
            .directory(KvrouterImage.repository().toFile())
            .redirectErrorStream(true);
    builder.environment().putAll(env);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    assertThat(process.exitValue()).as(output).isZero();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
