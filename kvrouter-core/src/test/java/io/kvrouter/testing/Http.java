package io.kvrouter.testing;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** Plain HTTP calls for tests that check status codes and bodies byte for byte. */
public final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private Http() {}

  public record Response(int status, String body) {
    public JsonObject json() {
      return new JsonObject(body);
    }
  }

  public static Response get(String url) throws Exception {
    return send(HttpRequest.newBuilder(URI.create(url)).GET());
  }

  public static Response post(String url, String body) throws Exception {
    return send(
        HttpRequest.newBuilder(URI.create(url))
            .header("content-type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)));
  }

  public static Response postJson(String url, JsonObject body) throws Exception {
    return post(url, body.encode());
  }

  private static Response send(HttpRequest.Builder request) throws Exception {
    HttpResponse<String> response =
        CLIENT.send(
            request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    return new Response(response.statusCode(), response.body());
  }

  /**
   * Sends a JSON POST to {@code path} of the server on loopback {@code port} over a raw socket and
   * leaves it open, unread: the request stays in flight until the caller closes the socket, which
   * is how a client disconnects.
   */
  public static Socket openPost(int port, String path, String jsonBody) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    byte[] body = jsonBody.getBytes(StandardCharsets.UTF_8);
    OutputStream out = socket.getOutputStream();
    out.write(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + body.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.UTF_8));
    out.write(body);
    out.flush();
    return socket;
  }
}
