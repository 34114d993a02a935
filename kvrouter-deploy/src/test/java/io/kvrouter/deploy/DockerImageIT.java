package io.kvrouter.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.github.dockerjava.api.command.InspectContainerResponse;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * The Docker image built from docker/Dockerfile on a base image without a registry, run by
 * Testcontainers as a user runs it: the demo answers a chat, it runs as a non-root user, its
 * HEALTHCHECK turns healthy, and SIGTERM drains it to exit 0.
 *
 * <p>Runs when {@code scripts/test} could start Docker (as root) and names the base image in {@code
 * kvrouter.docker.base}; otherwise {@code scripts/test} says that these tests did not run, and why.
 */
@EnabledIfSystemProperty(named = "kvrouter.docker.base", matches = ".+")
class DockerImageIT {
  private static final String IMAGE = KvrouterImage.NAME;

  @BeforeAll
  static void buildImage() throws Exception {
    KvrouterImage.build();
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Test
  void theDemo_answersAChat_asANonRootUser_healthy_andDrainsOnSigterm() throws Exception {
    int port = freePort();
    try (GenericContainer<?> router =
        new GenericContainer<>(DockerImageName.parse(IMAGE))
            .withImagePullPolicy(name -> false)
            .withNetworkMode("host")
            .withEnv("DYN_HTTP_PORT", String.valueOf(port))
            .withCommand("--mock-workers", "2", "--http-host", "127.0.0.1")
            .waitingFor(Wait.forLogMessage(".*kvrouter serving model.*", 1))
            .withStartupTimeout(Duration.ofSeconds(120))) {
      router.start();

      HttpResponse<String> chat =
          HttpClient.newHttpClient()
              .send(
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

      assertThat(router.execInContainer("id", "-u").getStdout().strip()).isEqualTo("10001");
      await()
          .atMost(Duration.ofSeconds(90))
          .until(
              () ->
                  "healthy"
                      .equals(router.getCurrentContainerInfo().getState().getHealth().getStatus()));

      router
          .getDockerClient()
          .stopContainerCmd(router.getContainerId())
          .withTimeout(60)
          .exec(); // SIGTERM, then SIGKILL only after 60 s
      InspectContainerResponse stopped =
          router.getDockerClient().inspectContainerCmd(router.getContainerId()).exec();
      assertThat(stopped.getState().getExitCodeLong()).isZero();
      assertThat(router.getLogs()).contains("shutting down", "stopped");
      assertThat(List.of(stopped.getConfig().getLabels().keySet().toArray()))
          .contains("org.opencontainers.image.title", "org.opencontainers.image.version");
    }
  }
}
