package io.kvrouter.app;

import static io.kvrouter.app.HttpFramingIT.assertOpenAiError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.RawHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --http-max-connections}: with the cap taken by idle connections, requests on a connection
 * inside the cap are served, a load balancer's probe on a new connection still answers from the
 * reserve while generation requests get 503, and connections past the reserve are closed at once
 * and counted. Every step waits for the connection gauge, read on a connection held from the start,
 * to show what the step needs.
 */
class ConnectionCapIT {
  private static final int CAP = 8;
  private static final int RESERVE = 32; // ConnectionLimit.PROBE_RESERVE
  private static final Duration BOUND = Duration.ofSeconds(60);
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":2,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String CHAT_REQUEST =
      "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: "
          + CHAT.length()
          + "\r\n\r\n"
          + CHAT;

  private static RouterFixture router;

  @BeforeAll
  static void start() throws Exception {
    router =
        RouterFixture.start(
            Map.of(
                "mock-workers", List.of("1"),
                "http-max-connections", List.of(String.valueOf(CAP)),
                // idle connections must outlive the test
                "http-header-timeout-secs", List.of("600"),
                "http-idle-timeout-secs", List.of("600")));
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(router.detector.blockedThreads()).isEmpty();
    } finally {
      router.close();
    }
  }

  private static double metric(RawHttp held, String name) throws Exception {
    RawHttp.Reply reply = held.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND);
    assertThat(reply.status()).isEqualTo(200);
    return Prometheus.sum(reply.text(), name);
  }

  private static void awaitOpen(RawHttp held, int connections) {
    await().atMost(BOUND).until(() -> metric(held, "kvrouter_http_connections") == connections);
  }

  @Test
  void atTheCap_probesAnswerFromTheReserve_andConnectionsPastItAreClosedAtOnce() throws Exception {
    List<RawHttp> idle = new ArrayList<>();
    try (RawHttp held = RawHttp.connect(router.app.httpPort())) {
      awaitOpen(held, 1);
      for (int i = 1; i < CAP; i++) {
        idle.add(RawHttp.connect(router.app.httpPort()));
      }
      awaitOpen(held, CAP);

      // a connection inside the cap is served in full
      RawHttp.Reply chat = held.send(CHAT_REQUEST).response(BOUND);
      assertThat(chat.status()).as(chat.text()).isEqualTo(200);

      // past the cap: the probe answers, then the connection closes; generation gets 503
      try (RawHttp probe = RawHttp.connect(router.app.httpPort())) {
        RawHttp.Reply health =
            probe.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND);
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.json().getString("status")).isEqualTo("healthy");
        assertThat(health.header("connection")).isEqualTo("close");
        assertThat(probe.closesWithin(BOUND)).isTrue();
      }
      try (RawHttp refused = RawHttp.connect(router.app.httpPort())) {
        RawHttp.Reply reply = refused.send(CHAT_REQUEST).response(BOUND);
        assertOpenAiError(reply, 503, "connection_limit");
        assertThat(refused.closesWithin(BOUND)).isTrue();
      }
      awaitOpen(held, CAP);

      // fill the reserve: the next connection is closed at once, without an answer
      for (int i = 0; i < RESERVE; i++) {
        idle.add(RawHttp.connect(router.app.httpPort()));
      }
      awaitOpen(held, CAP + RESERVE);
      try (RawHttp over = RawHttp.connect(router.app.httpPort())) {
        over.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat(over.responseOrClose(BOUND, false)).isEmpty();
      }
      assertThat(metric(held, "kvrouter_http_connections_refused_total")).isEqualTo(1);

      // the idle clients leave: everything is served again
      for (RawHttp connection : idle) {
        connection.close();
      }
      idle.clear();
      awaitOpen(held, 1);
      try (RawHttp fresh = RawHttp.connect(router.app.httpPort())) {
        RawHttp.Reply reply = fresh.send(CHAT_REQUEST).response(BOUND);
        assertThat(reply.status()).as(reply.text()).isEqualTo(200);
      }
    } finally {
      for (RawHttp connection : idle) {
        connection.close();
      }
    }
  }
}
