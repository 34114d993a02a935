package io.kvrouter.app;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;

/**
 * The requests of {@link HttpFuzzIT}: each case starts from a valid request to one of the router's
 * routes and applies one to three mutations (request line, headers, framing, line endings, body,
 * JSON), then, now and then, flips, inserts or cuts raw bytes. A case depends only on the seed and
 * its index, so any case can be rebuilt alone.
 */
final class HttpFuzzCases {
  private HttpFuzzCases() {}

  /** One request to send: its bytes, whether it is a HEAD, and what was done to it. */
  record Case(int index, byte[] bytes, boolean head, String mutations) {
    /** The bytes, printable: control characters escaped, long runs cut. */
    String printable() {
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < bytes.length && out.length() < 600; i++) {
        int b = bytes[i] & 0xff;
        if (b == '\r') {
          out.append("\\r");
        } else if (b == '\n') {
          out.append("\\n");
        } else if (b < 0x20 || b >= 0x7f) {
          out.append(String.format("\\x%02x", b));
        } else {
          out.append((char) b);
        }
      }
      return bytes.length > 600 ? out + "... (" + bytes.length + " bytes)" : out.toString();
    }
  }

  private static final String[][] ROUTES = {
    {"GET", "/health"},
    {"GET", "/live"},
    {"GET", "/metrics"},
    {"GET", "/v1/models"},
    {"GET", "/router/workers"},
    {"POST", "/v1/chat/completions"},
    {"POST", "/v1/chat/completions"},
    {"POST", "/v1/completions"},
    {"POST", "/router/explain"},
  };

  /** A request being built; {@link #bytes()} lays it out. */
  private static final class Draft {
    String method;
    String target;
    String version = "HTTP/1.1";
    final List<String[]> headers = new ArrayList<>();
    byte[] body = new byte[0];
    String eol = "\r\n";

    /** How the body is framed when no mutation wrote the framing headers itself. */
    boolean chunked;

    boolean autoLength = true;
    String prefix = "";
    byte[] chunkedBody;
    byte[] pipelined = new byte[0];

    void header(String name, String value) {
      headers.add(new String[] {name, value});
    }

    void remove(String name) {
      headers.removeIf(h -> h[0].equalsIgnoreCase(name));
    }

    byte[] bytes() {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      StringBuilder head = new StringBuilder(prefix);
      head.append(method).append(' ').append(target);
      if (!version.isEmpty()) {
        head.append(' ').append(version);
      }
      head.append(eol);
      for (String[] h : headers) {
        head.append(h[0]).append(':').append(h[1].isEmpty() ? "" : " " + h[1]).append(eol);
      }
      byte[] payload = body;
      if (chunked) {
        payload = chunkedBody != null ? chunkedBody : chunks(body, eol);
        if (autoLength) {
          head.append("Transfer-Encoding: chunked").append(eol);
        }
      } else if (autoLength && (body.length > 0 || method.equals("POST"))) {
        head.append("Content-Length: ").append(body.length).append(eol);
      }
      head.append(eol);
      out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.writeBytes(payload);
      out.writeBytes(pipelined);
      return out.toByteArray();
    }
  }

  private static byte[] chunks(byte[] body, String eol) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int i = 0; i < body.length; i += 7) {
      int n = Math.min(7, body.length - i);
      out.writeBytes((Integer.toHexString(n) + eol).getBytes(StandardCharsets.ISO_8859_1));
      out.write(body, i, n);
      out.writeBytes(eol.getBytes(StandardCharsets.ISO_8859_1));
    }
    out.writeBytes(("0" + eol + eol).getBytes(StandardCharsets.ISO_8859_1));
    return out.toByteArray();
  }

  /** Case {@code index} of the run seeded {@code seed}. */
  static Case generate(long seed, int index) {
    Random random = new Random(seed * 0x9E3779B97F4A7C15L + index);
    String[] route = ROUTES[random.nextInt(ROUTES.length)];
    Draft draft = new Draft();
    draft.method = route[0];
    draft.target = route[1];
    draft.header("Host", "localhost");
    if (draft.method.equals("POST")) {
      draft.header("Content-Type", "application/json");
      draft.body = validBody(route[1], random).encode().getBytes(StandardCharsets.UTF_8);
    }
    List<String> applied = new ArrayList<>();
    int mutations = 1 + random.nextInt(3);
    for (int i = 0; i < mutations; i++) {
      int which = random.nextInt(MUTATIONS.size());
      applied.add(MUTATION_NAMES.get(which));
      MUTATIONS.get(which).accept(new Mutation(draft, random));
    }
    byte[] bytes = draft.bytes();
    if (random.nextInt(10) == 0) {
      applied.add("raw bytes");
      bytes = mutateBytes(bytes, random);
    }
    if (random.nextInt(25) == 0 && bytes.length > 1) {
      applied.add("truncated");
      bytes = java.util.Arrays.copyOf(bytes, 1 + random.nextInt(bytes.length - 1));
    }
    String method = draft.method.strip();
    return new Case(index, bytes, method.equals("HEAD"), String.join(", ", applied));
  }

  private static JsonObject validBody(String path, Random random) {
    JsonObject body = new JsonObject().put("model", "mock-model").put("max_tokens", 3);
    if (random.nextBoolean()) {
      body.put("stream", true);
    }
    if (path.endsWith("/completions") && !path.contains("chat")) {
      return body.put("prompt", "fuzz " + random.nextInt(1000));
    }
    return body.put(
        "messages",
        new JsonArray()
            .add(new JsonObject().put("role", "user").put("content", "fuzz " + random.nextInt())));
  }

  private record Mutation(Draft draft, Random random) {
    <T> T pick(List<T> options) {
      return options.get(random.nextInt(options.size()));
    }

    String junk(int maxLength) {
      StringBuilder out = new StringBuilder();
      int length = random.nextInt(maxLength + 1);
      for (int i = 0; i < length; i++) {
        out.append((char) random.nextInt(256));
      }
      return out.toString();
    }
  }

  private static final List<String> MUTATION_NAMES = new ArrayList<>();
  private static final List<Consumer<Mutation>> MUTATIONS = new ArrayList<>();

  private static void mutation(String name, Consumer<Mutation> mutation) {
    MUTATION_NAMES.add(name);
    MUTATIONS.add(mutation);
  }

  static {
    mutation(
        "method",
        m ->
            m.draft.method =
                m.pick(
                    List.of(
                        "get",
                        "PUT",
                        "DELETE",
                        "PATCH",
                        "OPTIONS",
                        "HEAD",
                        "TRACE",
                        "CONNECT",
                        "PRI",
                        "G\0T",
                        "GET GET",
                        "",
                        "POST\t",
                        "\u00e9",
                        m.junk(12))));
    mutation(
        "target",
        m ->
            m.draft.target =
                m.pick(
                    List.of(
                        "",
                        "*",
                        "//health",
                        "/health/",
                        "/v1/../health",
                        "/%zz",
                        "/%00",
                        "/v1/models?x=%",
                        "http://localhost/health",
                        "/" + "a".repeat(m.random.nextInt(6000)),
                        "/\u00e9",
                        "/ health",
                        "/v1/models#frag",
                        "/v1/chat/completions?" + "q".repeat(100),
                        "/" + m.junk(20))));
    mutation(
        "version",
        m ->
            m.draft.version =
                m.pick(
                    List.of(
                        "HTTP/1.0",
                        "HTTP/1.2",
                        "HTTP/2.0",
                        "HTTP/0.9",
                        "HTTP/1",
                        "http/1.1",
                        "HTTP/1.1 x",
                        "",
                        "HTTP/11.1",
                        "HTTP/1.1\t",
                        "HTTP/1.10",
                        m.junk(8))));
    mutation(
        "host",
        m -> {
          int choice = m.random.nextInt(5);
          if (choice == 0) {
            m.draft.remove("Host");
          } else if (choice == 1) {
            m.draft.header("Host", "other");
          } else {
            m.draft.remove("Host");
            m.draft.header("Host", m.pick(List.of("", "a b", "x:99999", "[::1", m.junk(10))));
          }
        });
    mutation(
        "header",
        m ->
            m.draft.header(
                m.pick(
                    List.of(
                        "X-Fuzz",
                        "X Fuzz",
                        "X:Fuzz",
                        "",
                        "X-\u00e9",
                        "X-\u0001",
                        " X-Lead",
                        "X-Fuzz ",
                        m.junk(10))),
                m.pick(
                    List.of(
                        "v",
                        "a".repeat(m.random.nextInt(10_000)),
                        "a\u0000b",
                        "a\rb",
                        "v\r\n folded",
                        "\u00ff\u00fe",
                        m.junk(40)))));
    mutation(
        "many headers",
        m -> {
          int count = m.random.nextInt(300);
          for (int i = 0; i < count; i++) {
            m.draft.header("X-H" + i, "value-" + i);
          }
        });
    mutation(
        "content-length",
        m -> {
          m.draft.autoLength = false;
          m.draft.chunked = false;
          int length = m.draft.body.length;
          switch (m.random.nextInt(9)) {
            case 0 -> {}
            case 1 -> {
              m.draft.header("Content-Length", String.valueOf(length));
              m.draft.header("Content-Length", String.valueOf(length));
            }
            case 2 -> {
              m.draft.header("Content-Length", String.valueOf(length));
              m.draft.header("Content-Length", String.valueOf(length + 1));
            }
            case 3 -> m.draft.header("Content-Length", "-1");
            case 4 -> m.draft.header("Content-Length", "abc");
            case 5 -> m.draft.header("Content-Length", "99999999999999999999");
            case 6 -> m.draft.header("Content-Length", String.valueOf(Math.max(0, length - 3)));
            case 7 -> m.draft.header("Content-Length", String.valueOf(length + 5));
            default -> m.draft.header("Content-Length", "+" + length);
          }
        });
    mutation(
        "chunked",
        m -> {
          m.draft.chunked = true;
          String eol = m.draft.eol;
          switch (m.random.nextInt(6)) {
            case 0 -> {}
            case 1 ->
                m.draft.chunkedBody = ("zz" + eol + "hello" + eol + "0" + eol + eol).getBytes();
            case 2 -> m.draft.chunkedBody = ("5" + eol + "hel").getBytes();
            case 3 -> m.draft.chunkedBody = ("ffffffffffff" + eol + "x" + eol).getBytes();
            case 4 ->
                m.draft.chunkedBody =
                    ("3;ext=1" + eol + "{}}" + eol + "0" + eol + "X-Trailer: t" + eol + eol)
                        .getBytes();
            default ->
                m.draft.chunkedBody = ("2" + eol + "{}xx" + eol + "0" + eol + eol).getBytes();
          }
        });
    mutation(
        "transfer-encoding",
        m -> {
          m.draft.chunked = true;
          m.draft.autoLength = false;
          switch (m.random.nextInt(6)) {
            case 0 -> {
              m.draft.header("Content-Length", String.valueOf(m.draft.body.length));
              m.draft.header("Transfer-Encoding", "chunked");
            }
            case 1 -> m.draft.header("Transfer-Encoding", "gzip");
            case 2 -> m.draft.header("Transfer-Encoding", "chunked, gzip");
            case 3 -> m.draft.header("Transfer-Encoding", "gzip, chunked");
            case 4 -> {
              m.draft.header("Transfer-Encoding", "chunked");
              m.draft.header("Transfer-Encoding", "chunked");
            }
            default -> m.draft.header("Transfer-Encoding", " Chunked ");
          }
        });
    mutation("line endings", m -> m.draft.eol = m.pick(List.of("\n", "\r", "\r\r\n", "\n\r")));
    mutation("prefix", m -> m.draft.prefix = m.pick(List.of("\r\n", "\r\n\r\n", " ", "\0", "\t")));
    mutation(
        "expect", m -> m.draft.header("Expect", m.pick(List.of("100-continue", "200-ok", ""))));
    mutation(
        "connection",
        m -> {
          m.draft.header(
              "Connection", m.pick(List.of("close", "keep-alive", "Upgrade, HTTP2-Settings")));
          if (m.random.nextBoolean()) {
            m.draft.header("Upgrade", m.pick(List.of("h2c", "websocket", "TLS/1.0")));
            m.draft.header("HTTP2-Settings", "AAMAAABkAAQAAP__");
          }
        });
    mutation(
        "content-type",
        m -> {
          m.draft.remove("Content-Type");
          String type =
              m.pick(
                  List.of(
                      "text/plain",
                      "application/x-www-form-urlencoded",
                      "multipart/form-data; boundary=x",
                      "application/json; charset=latin1",
                      "",
                      m.junk(15)));
          if (!type.isEmpty()) {
            m.draft.header("Content-Type", type);
          }
        });
    mutation(
        "body",
        m ->
            m.draft.body =
                m.pick(
                        List.of(
                            "",
                            "null",
                            "[]",
                            "\"text\"",
                            "{",
                            "{}}",
                            "{\"model\":",
                            "{\"model\":1}",
                            "[".repeat(600) + "]".repeat(600),
                            "[".repeat(3000),
                            "{\"model\":\"mock-model\",\"prompt\":\""
                                + "x".repeat(100_000)
                                + "\",\"max_tokens\":1}",
                            "{\"a\":1e999}",
                            "{\"model\":\"mock-model\",\"model\":\"other\"}",
                            "\u00ff\u00fe\u0000{",
                            m.junk(200)))
                    .getBytes(StandardCharsets.ISO_8859_1));
    mutation(
        "json field",
        m -> {
          if (m.draft.body.length == 0) {
            return;
          }
          JsonObject body;
          try {
            body = new JsonObject(new String(m.draft.body, StandardCharsets.UTF_8));
          } catch (RuntimeException notJson) {
            return;
          }
          List<String> fields =
              List.of(
                  "model",
                  "messages",
                  "prompt",
                  "max_tokens",
                  "stream",
                  "temperature",
                  "n",
                  "stop",
                  "logprobs",
                  "stream_options",
                  "tools",
                  "top_p",
                  "seed",
                  "unknown");
          String field = m.pick(fields);
          Object value =
              m.pick(
                  java.util.Arrays.asList(
                      null,
                      -1,
                      0,
                      Long.MAX_VALUE,
                      1e308,
                      "",
                      "x".repeat(1000),
                      true,
                      new JsonArray(),
                      new JsonObject(),
                      new JsonArray().add(new JsonObject().put("role", 7)),
                      new JsonArray().addNull(),
                      new JsonObject().put("include_usage", "yes")));
          if (m.random.nextInt(4) == 0) {
            body.remove(field);
          } else {
            body.put(field, value);
          }
          m.draft.body = body.encode().getBytes(StandardCharsets.UTF_8);
        });
    mutation(
        "pipelined",
        m ->
            m.draft.pipelined =
                m.pick(
                        List.of(
                            "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
                            "GARBAGE\r\n\r\n",
                            "GET /v1/models HTTP/1.1\r\n"))
                    .getBytes(StandardCharsets.ISO_8859_1));
  }

  private static byte[] mutateBytes(byte[] bytes, Random random) {
    byte[] out = bytes.clone();
    int flips = 1 + random.nextInt(3);
    for (int i = 0; i < flips; i++) {
      int at = random.nextInt(out.length);
      switch (random.nextInt(3)) {
        case 0 -> out[at] = (byte) random.nextInt(256);
        case 1 -> out[at] = (byte) "\r\n\0: ".charAt(random.nextInt(5));
        default -> {
          byte[] shorter = new byte[out.length - 1];
          System.arraycopy(out, 0, shorter, 0, at);
          System.arraycopy(out, at + 1, shorter, at, out.length - at - 1);
          if (shorter.length == 0) {
            return out;
          }
          out = shorter;
        }
      }
    }
    return out;
  }
}
