package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.kvrouter.testing.Http;
import io.kvrouter.testing.Prometheus;
import io.kvrouter.testing.RawHttp;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Requests that are not valid HTTP/1.1, sent on raw sockets to a router with a simulated worker:
 * each gets an OpenAI error body with the status RFC 9112 calls for, and the connection is closed
 * when the request's framing cannot be trusted. Smuggling attempts ({@code Content-Length} with
 * {@code Transfer-Encoding}) are refused, an HTTP/1.0 stream ends with the connection, and no
 * client mistake is logged as an error.
 */
class HttpFramingIT {
  private static final Duration BOUND = Duration.ofSeconds(30);
  private static final String CHAT =
      "{\"model\":\"mock-model\",\"max_tokens\":3,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
  private static final String STREAM =
      "{\"model\":\"mock-model\",\"max_tokens\":3,\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static RouterFixture router;
  private static LogCapture logs;

  @BeforeAll
  static void start() throws Exception {
    router = RouterFixture.start(Map.of("mock-workers", List.of("1")));
    logs = LogCapture.attach();
  }

  @AfterAll
  static void stop() throws Exception {
    try {
      assertThat(logs.at(Level.ERROR)).as("client mistakes logged as errors").isEmpty();
      assertThat(router.detector.blockedThreads()).isEmpty();
    } finally {
      logs.close();
      router.close();
    }
  }

  private static RawHttp connect() throws Exception {
    return RawHttp.connect(router.app.httpPort());
  }

  /** Checks that {@code reply} is an OpenAI error with {@code status} and {@code code}. */
  static void assertOpenAiError(RawHttp.Reply reply, int status, String code) {
    assertThat(reply.status()).as(reply.text()).isEqualTo(status);
    assertThat(reply.header("content-type")).isEqualTo("application/json");
    JsonObject error = reply.error();
    assertThat(error.fieldNames()).containsExactlyInAnyOrder("message", "type", "param", "code");
    assertThat(error.getString("message")).isNotBlank();
    assertThat(error.getString("code")).isEqualTo(code);
  }

  static Stream<Arguments> brokenRequests() {
    String chunkedHead =
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n";
    return Stream.of(
        Arguments.of("no Host in HTTP/1.1", "GET /health HTTP/1.1\r\n\r\n", 400, "missing_host"),
        Arguments.of(
            "two Host headers",
            "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            400,
            "duplicate_host"),
        Arguments.of(
            "two Content-Length values",
            chunkedHead + "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
            400,
            "malformed_request"),
        Arguments.of(
            "a Content-Length that is not a number",
            chunkedHead + "Content-Length: 5x\r\n\r\nhello",
            400,
            "malformed_request"),
        Arguments.of(
            "a space in a header name",
            "GET /health HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n",
            400,
            "malformed_request"),
        Arguments.of(
            "lines ending in a bare LF",
            "GET /health HTTP/1.1\nHost: x\n\n",
            400,
            "invalid_line_ending"),
        Arguments.of(
            "HTTP/1.7",
            "GET /health HTTP/1.7\r\nHost: x\r\n\r\n",
            505,
            "http_version_not_supported"),
        Arguments.of(
            "HTTP/2.0 in an HTTP/1 request line",
            "GET /health HTTP/2.0\r\nHost: x\r\n\r\n",
            505,
            "http_version_not_supported"),
        Arguments.of(
            "a request line over 4096 bytes",
            "GET /" + "a".repeat(5000) + " HTTP/1.1\r\nHost: x\r\n\r\n",
            414,
            "uri_too_long"),
        Arguments.of(
            "headers over 8 KiB",
            "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + "a".repeat(9000) + "\r\n\r\n",
            431,
            "header_fields_too_large"),
        Arguments.of(
            "a chunk size that is not hex",
            chunkedHead + "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
            400,
            "malformed_body"),
        Arguments.of(
            "Content-Length and Transfer-Encoding (smuggling)",
            chunkedHead
                + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n"
                + Integer.toHexString(CHAT.length())
                + "\r\n"
                + CHAT
                + "\r\n0\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n",
            400,
            "ambiguous_framing"),
        Arguments.of(
            "Transfer-Encoding gzip",
            chunkedHead + "Transfer-Encoding: gzip\r\n\r\nabc",
            400,
            "invalid_transfer_encoding"),
        Arguments.of(
            "Transfer-Encoding chunked, then gzip",
            chunkedHead + "Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n",
            400,
            "invalid_transfer_encoding"),
        Arguments.of(
            "Transfer-Encoding gzip, then chunked",
            chunkedHead + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            501,
            "unsupported_transfer_encoding"),
        Arguments.of(
            "Transfer-Encoding in HTTP/1.0",
            "POST /v1/chat/completions HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            400,
            "invalid_transfer_encoding"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenRequests")
  void brokenFraming_getsAnOpenAiErrorAndTheConnectionCloses(
      String name, String request, int status, String code) throws Exception {
    try (RawHttp connection = connect()) {
      RawHttp.Reply reply = connection.send(request).response(BOUND);
      assertOpenAiError(reply, status, code);
      assertThat(reply.header("connection")).isEqualTo("close");
      assertThat(connection.closesWithin(BOUND)).as("closed after the answer").isTrue();
    }
    String metrics = Http.get(router.baseUrl + "/metrics").body();
    assertThat(
            Prometheus.sum(
                metrics, "kvrouter_http_rejected_requests_total", Map.of("reason", code)))
        .isPositive();
  }

  @Test
  void pathThatCannotBeDecoded_getsAnOpenAiError() throws Exception {
    try (RawHttp connection = connect()) {
      assertOpenAiError(
          connection.send("GET /v1/%zz HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND),
          400,
          "bad_request");
    }
  }

  @Test
  void unknownRouteAndMethod_getOpenAiErrors() throws Exception {
    try (RawHttp connection = connect()) {
      assertOpenAiError(
          connection.send("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND),
          404,
          "not_found");
      assertOpenAiError(
          connection.send("DELETE /health HTTP/1.1\r\nHost: x\r\n\r\n").response(BOUND),
          405,
          "method_not_allowed");
    }
  }

  @Test
  void http10StreamWithKeepAlive_endsWithTheConnection() throws Exception {
    try (RawHttp connection = connect()) {
      RawHttp.Reply reply =
          connection
              .send(
                  "POST /v1/chat/completions HTTP/1.0\r\nConnection: keep-alive\r\n"
                      + "Content-Type: application/json\r\nContent-Length: "
                      + STREAM.length()
                      + "\r\n\r\n"
                      + STREAM)
              .response(BOUND); // no framing: read to the connection's end, or fail as a hang
      assertThat(reply.status()).isEqualTo(200);
      assertThat(reply.header("content-length")).isNull();
      assertThat(reply.header("connection")).isEqualTo("close");
      assertThat(reply.text()).startsWith("data: {").endsWith("data: [DONE]\n\n");
    }
  }

  @Test
  void http10UnaryWithKeepAlive_keepsTheConnection() throws Exception {
    try (RawHttp connection = connect()) {
      String request =
          "POST /v1/chat/completions HTTP/1.0\r\nConnection: keep-alive\r\n"
              + "Content-Type: application/json\r\nContent-Length: "
              + CHAT.length()
              + "\r\n\r\n"
              + CHAT;
      assertThat(connection.send(request).response(BOUND).status()).isEqualTo(200);
      assertThat(connection.send(request).response(BOUND).status()).isEqualTo(200);
    }
  }

  @Test
  void http11Streams_keepTheConnection() throws Exception {
    try (RawHttp connection = connect()) {
      String request =
          "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
              + "Content-Type: application/json\r\nContent-Length: "
              + STREAM.length()
              + "\r\n\r\n"
              + STREAM;
      for (int i = 0; i < 2; i++) {
        RawHttp.Reply reply = connection.send(request).response(BOUND);
        assertThat(reply.header("transfer-encoding")).isEqualTo("chunked");
        assertThat(reply.text()).endsWith("data: [DONE]\n\n");
      }
    }
  }
}
