package io.kvrouter.app;

import static io.kvrouter.app.HttpFramingIT.assertOpenAiError;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.RawHttp;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients that hold connections without finishing requests, against a router whose idle, header and
 * body timeouts are 1 s: a slow head or body gets 408 and the connection is closed, an idle
 * connection is closed without an answer, and a request the router is still answering (a worker
 * slower than every timeout) is not cut. The assertions wait for what must happen, with bounds far
 * above the timeouts; none depends on how soon it happens.
 */
class SlowClientsIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":2,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static RouterFixture router;

  @BeforeAll
  static void start() throws Exception {
    router =
        RouterFixture.start(
            Map.of(
                "mock-workers", List.of("1"),
                "mock-ttft-ms", List.of("2500"), // slower than every timeout below
                "http-idle-timeout-secs", List.of("1"),
                "http-header-timeout-secs", List.of("1"),
                "http-body-timeout-secs", List.of("1")));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(router.detector.blockedThreads()).isEmpty();
    } finally {
      router.close();
    }
  }

  private static RawHttp connect() throws Exception {
    return RawHttp.connect(router.app.httpPort());
  }

  private static String chat(String version) {
    return "POST /v1/chat/completions "
        + version
        + "\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: "
        + CHAT.length()
        + "\r\n\r\n"
        + CHAT;
  }

  @Test
  void headThatNeverEnds_gets408AndTheConnectionCloses() throws Exception {
    try (RawHttp connection = connect()) {
      RawHttp.Reply reply =
          connection.send("POST /v1/chat/completions HTTP/1.1\r\nHo").response(BOUND);
      assertOpenAiError(reply, 408, "header_timeout");
      assertThat(connection.closesWithin(BOUND)).isTrue();
    }
  }

  @Test
  void bodyThatStalls_gets408AndTheConnectionCloses() throws Exception {
    try (RawHttp connection = connect()) {
      String head = chat("HTTP/1.1");
      RawHttp.Reply reply = connection.send(head.substring(0, head.length() - 10)).response(BOUND);
      assertOpenAiError(reply, 408, "body_timeout");
      assertThat(connection.closesWithin(BOUND)).isTrue();
    }
  }

  @Test
  void connectionThatSendsNothing_isClosedWithoutAnAnswer() throws Exception {
    try (RawHttp connection = connect()) {
      assertThat(connection.responseOrClose(BOUND, false)).isEmpty();
    }
  }

  @Test
  void idleKeptAliveConnection_isClosedWithoutAnAnswer() throws Exception {
    try (RawHttp connection = connect()) {
      assertThat(
              connection.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND).status())
          .isEqualTo(200);
      assertThat(connection.responseOrClose(BOUND, false)).isEmpty();
    }
  }

  @Test
  void requestSlowerThanEveryTimeout_isAnsweredOnItsKeptAliveConnection() throws Exception {
    try (RawHttp connection = connect()) {
      for (int i = 0; i < 2; i++) {
        RawHttp.Reply reply = connection.send(chat("HTTP/1.1")).response(BOUND);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
        assertThat(reply.json().getString("object")).isEqualTo("chat.completion");
      }
    }
  }
}
