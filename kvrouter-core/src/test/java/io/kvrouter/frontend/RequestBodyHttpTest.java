package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.testing.FakeRequestPlane;
import io.kvrouter.testing.Futures;
import io.kvrouter.testing.Http;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the HTTP API does with request bodies before any worker sees them: only JSON content types
 * are read, and a valid JSON body within the body limit is read whatever the length of its strings.
 * A real server over the demo model; the worker is a {@link FakeRequestPlane}.
 */
class RequestBodyHttpTest {
  private static final List<String> POST_ROUTES =
      List.of("/v1/chat/completions", "/v1/completions", "/router/explain");
  private static final String COMPLETION =
      "{\"model\":\"demo\",\"prompt\":\"hi\",\"max_tokens\":1}";

  private final Vertx vertx = Vertx.vertx();
  private final FakeRequestPlane plane = new FakeRequestPlane();
  private int port;

  @BeforeEach
  void start() throws Exception {
    port = DemoFrontend.start(vertx, plane);
  }

  @AfterEach
  void close() throws Exception {
    Futures.result(vertx.close());
  }

  /** Status line and body of what the server answers {@code request} with, on a new connection. */
  private Http.Response exchange(String request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      return readResponse(socket.getInputStream());
    }
  }

  /** One HTTP/1.1 response with a Content-Length. */
  private static Http.Response readResponse(InputStream in) throws Exception {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
      int b = in.read();
      assertThat(b).as("the connection closed within the head: " + head).isNotNegative();
      head.write(b);
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    int length = 0;
    for (String line : lines) {
      if (line.toLowerCase().startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    byte[] body = in.readNBytes(length);
    return new Http.Response(
        Integer.parseInt(lines[0].split(" ")[1]), new String(body, StandardCharsets.UTF_8));
  }

  private static String post(String path, List<String> headers, String body) {
    StringBuilder request =
        new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    headers.forEach(h -> request.append(h).append("\r\n"));
    return request
        .append("Content-Length: ")
        .append(body.getBytes(StandardCharsets.UTF_8).length)
        .append("\r\n\r\n")
        .append(body)
        .toString();
  }

  private static void assertUnsupportedMediaType(Http.Response response, String what) {
    assertThat(response.status()).as(what).isEqualTo(415);
    JsonObject error = response.json().getJsonObject("error");
    assertThat(error.fieldNames()).containsExactlyInAnyOrder("message", "type", "param", "code");
    assertThat(error.getString("type")).isEqualTo("invalid_request_error");
    assertThat(error.getString("code")).isEqualTo("unsupported_media_type");
    assertThat(error.getString("message")).as(what).isNotBlank();
  }

  @Test
  void bodiesNotDeclaredJson_areRefusedWith415_onEveryPostRoute() throws Exception {
    List<List<String>> refused =
        List.of(
            List.of(),
            List.of("Content-Type: text/plain"),
            List.of("Content-Type: text/plain; charset=utf-8"),
            List.of("Content-Type: application/x-www-form-urlencoded"),
            List.of("Content-Type: multipart/form-data; boundary=x"),
            List.of("Content-Type: application/json; charset=iso-8859-1"),
            List.of("Content-Type: application/jsonp"),
            List.of("Content-Type: application/json", "Content-Type: application/json"));
    for (String path : POST_ROUTES) {
      for (List<String> headers : refused) {
        assertUnsupportedMediaType(exchange(post(path, headers, COMPLETION)), path + " " + headers);
      }
    }
    assertThat(plane.sends).isEmpty();
  }

  @Test
  void jsonWithAnyCaseAndAUtf8Charset_isServed() throws Exception {
    for (String type :
        List.of(
            "application/json",
            "Application/JSON",
            "application/json; charset=utf-8",
            "application/json;charset=\"UTF-8\"",
            "application/json; charset=utf-8; v=1")) {
      Http.Response response =
          exchange(post("/v1/completions", List.of("Content-Type: " + type), COMPLETION));
      assertThat(response.status()).as(type + ": " + response.body()).isEqualTo(200);
    }
  }

  /**
   * The 415 comes from the headers alone: the client announces a 10 MB body and sends none of it,
   * yet gets its answer (a server reading the body first would wait for it).
   */
  @Test
  void theContentTypeIsCheckedBeforeTheBodyIsRead() throws Exception {
    Http.Response response =
        exchange(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\n"
                + "Content-Type: text/plain\r\nContent-Length: 10000000\r\n\r\n");
    assertUnsupportedMediaType(response, "no body sent");
  }

  @Test
  void aRefusedRequestsBody_isSkipped_andTheConnectionServesTheNextRequest() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      String keepAlive = post("/v1/completions", List.of("Content-Type: text/plain"), COMPLETION);
      out.write(keepAlive.replace("Connection: close\r\n", "").getBytes(StandardCharsets.UTF_8));
      out.flush();
      assertUnsupportedMediaType(readResponse(socket.getInputStream()), "first");
      out.write(
          post("/v1/completions", List.of("Content-Type: application/json"), COMPLETION)
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
      Http.Response second = readResponse(socket.getInputStream());
      assertThat(second.status()).as(second.body()).isEqualTo(200);
    }
  }

  @Test
  void aStringLongerThanJacksonsDefaultLimit_isReadAsTheValidJsonItIs() throws Exception {
    // 21 million characters: Jackson's default limit of 20 million would call this invalid JSON
    String user = "u".repeat(21_000_000);
    Http.Response response =
        Http.post(
            "http://127.0.0.1:" + port + "/v1/completions",
            "{\"model\":\"demo\",\"prompt\":\"hi\",\"max_tokens\":1,\"user\":\"" + user + "\"}");
    assertThat(response.status()).as(response.body()).isEqualTo(200);
    assertThat(response.json().getJsonArray("choices")).hasSize(1);
  }

  @Test
  void invalidJson_isStillAnInvalidRequest() throws Exception {
    for (String body : List.of("", "{", "[1]", "{\"a\":1} x")) {
      Http.Response response = Http.post("http://127.0.0.1:" + port + "/v1/completions", body);
      assertThat(response.status()).as(body).isEqualTo(400);
      assertThat(response.json().getJsonObject("error").getString("type"))
          .isEqualTo("invalid_request_error");
    }
  }
}
