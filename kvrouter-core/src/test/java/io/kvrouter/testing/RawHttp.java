package io.kvrouter.testing;

import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One client connection on a raw socket, for tests that send bytes no HTTP client would (broken
 * framing, slow heads) and read the answer as sent: status, headers, body (by {@code
 * Content-Length}, chunked, or up to the connection's end) and whether the server then closed.
 * Every read has a bound; a response that does not come within it fails the test as a hang.
 */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final InputStream in;
  private final byte[] buffer = new byte[8192];
  private int start;
  private int end;
  private boolean eof;
  private long deadline;

  private RawHttp(Socket socket) throws IOException {
    this.socket = socket;
    this.in = socket.getInputStream();
  }

  /** A connection to {@code port} on loopback. */
  public static RawHttp connect(int port) throws IOException {
    Socket socket = new Socket("127.0.0.1", port);
    socket.setTcpNoDelay(true);
    return new RawHttp(socket);
  }

  /** A response as it came. */
  public record Reply(String version, int status, Map<String, List<String>> headers, byte[] body) {
    /** The first value of header {@code name} (any case), or {@code null}. */
    public String header(String name) {
      List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
      return values == null ? null : values.get(0);
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public JsonObject json() {
      return new JsonObject(text());
    }

    /** The {@code error} object of an OpenAI error body. */
    public JsonObject error() {
      return json().getJsonObject("error");
    }
  }

  /** Writes {@code text}, one byte per character (ISO-8859-1). */
  public RawHttp send(String text) throws IOException {
    return send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  public RawHttp send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
    return this;
  }

  /**
   * The next response; fails if the connection closes first or nothing comes within {@code bound}.
   */
  public Reply response(Duration bound) throws IOException {
    return responseOrClose(bound, false)
        .orElseThrow(
            () -> new AssertionError("the server closed the connection without an answer"));
  }

  /**
   * The next response, or empty when the connection closes (or is reset) before one starts; fails
   * if neither happens within {@code bound}. A response to HEAD has no body whatever its headers
   * say: say so with {@code toHead}.
   */
  public Optional<Reply> responseOrClose(Duration bound, boolean toHead) throws IOException {
    deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      String statusLine;
      try {
        statusLine = line();
      } catch (SocketException reset) {
        return Optional.empty();
      }
      if (statusLine == null) {
        return Optional.empty();
      }
      String[] parts = statusLine.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
        throw new AssertionError("not an HTTP status line: " + statusLine);
      }
      int status = Integer.parseInt(parts[1]);
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (String header; !(header = required(line())).isEmpty(); ) {
        int colon = header.indexOf(':');
        headers
            .computeIfAbsent(
                header.substring(0, colon).strip().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
            .add(header.substring(colon + 1).strip());
      }
      if (status >= 100 && status < 200) {
        continue; // 100 Continue and the like: the response follows
      }
      Reply head = new Reply(parts[0], status, headers, new byte[0]);
      byte[] body;
      if (toHead || status == 204 || status == 304) {
        body = new byte[0];
      } else if ("chunked".equalsIgnoreCase(head.header("transfer-encoding"))) {
        body = chunked();
      } else if (head.header("content-length") != null) {
        body = exactly(Integer.parseInt(head.header("content-length")));
      } else {
        body = untilClose();
      }
      return Optional.of(new Reply(parts[0], status, headers, body));
    }
  }

  /**
   * Whether the server closes (or resets) the connection within {@code bound}; bytes that come
   * first are read and dropped.
   */
  public boolean closesWithin(Duration bound) throws IOException {
    deadline = System.nanoTime() + bound.toNanos();
    try {
      while (fill()) {
        start = end;
      }
      return true;
    } catch (SocketException reset) {
      return true;
    } catch (AssertionError timedOut) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }

  private byte[] chunked() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String size = required(line());
      int semicolon = size.indexOf(';');
      int length =
          Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).strip(), 16);
      if (length == 0) {
        while (!required(line()).isEmpty()) {
          // trailers
        }
        return body.toByteArray();
      }
      body.writeBytes(exactly(length));
      required(line());
    }
  }

  private byte[] exactly(int length) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(length);
    while (out.size() < length) {
      if (start == end && !fill()) {
        throw new AssertionError(
            "the connection closed " + out.size() + " bytes into a body of " + length);
      }
      int n = Math.min(length - out.size(), end - start);
      out.write(buffer, start, n);
      start += n;
    }
    return out.toByteArray();
  }

  private byte[] untilClose() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    do {
      out.write(buffer, start, end - start);
      start = end;
    } while (fill());
    return out.toByteArray();
  }

  private static String required(String line) {
    if (line == null) {
      throw new AssertionError("the connection closed in the middle of a response head");
    }
    return line;
  }

  /** The next line without its CR LF (or bare LF); {@code null} at the end of the stream. */
  private String line() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    while (true) {
      if (start == end && !fill()) {
        return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
      }
      byte b = buffer[start++];
      if (b == '\n') {
        String text = line.toString(StandardCharsets.ISO_8859_1);
        return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
      }
      line.write(b);
    }
  }

  /** Reads more bytes; false at the end of the stream; fails past the deadline. */
  private boolean fill() throws IOException {
    if (eof) {
      return false;
    }
    long left = deadline - System.nanoTime();
    if (left <= 0) {
      throw new AssertionError("no answer from the server in time");
    }
    socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
    int n;
    try {
      n = in.read(buffer, 0, buffer.length);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no answer from the server in time");
    }
    if (n < 0) {
      eof = true;
      return false;
    }
    start = 0;
    end = n;
    return true;
  }
}
