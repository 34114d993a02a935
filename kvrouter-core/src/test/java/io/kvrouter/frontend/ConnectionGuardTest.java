package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.FaultLog;
import io.kvrouter.config.ConnectionLimits;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseEncoder;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The guard between Netty's HTTP codec and Vert.x, on an {@link EmbeddedChannel} whose clock the
 * test moves: deadlines, malformed bodies, unframed responses and probe-only connections. What the
 * channel's tail receives is what Vert.x would; what the test writes outbound is Vert.x's response.
 */
class ConnectionGuardTest {
  private static final ConnectionLimits LIMITS =
      new ConnectionLimits(
          Duration.ofSeconds(60), Duration.ofSeconds(10), Duration.ofSeconds(30), 100);

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ClientFaults faults =
      new ClientFaults(
          registry,
          new FaultLog(
              LoggerFactory.getLogger(ConnectionGuardTest.class),
              "rejected",
              Duration.ofMinutes(1),
              new ManualTicker()));
  private EmbeddedChannel channel;

  @AfterEach
  void close() {
    channel.finishAndReleaseAll();
  }

  private void open(boolean probesOnly) {
    channel = new EmbeddedChannel();
    channel.freezeTime();
    ConnectionGuard guard = new ConnectionGuard(LIMITS, probesOnly, faults);
    channel
        .pipeline()
        .addLast(
            guard.headBytes(),
            new StrictRequestDecoder(new HttpServerOptions()),
            new HttpResponseEncoder(),
            guard);
  }

  private void send(String bytes) {
    channel.writeInbound(Unpooled.copiedBuffer(bytes, StandardCharsets.ISO_8859_1));
  }

  private void elapse(Duration time) {
    channel.advanceTimeBy(time.toNanos(), TimeUnit.NANOSECONDS);
    channel.runScheduledPendingTasks();
    channel.runPendingTasks();
  }

  /** Everything written to the client so far. */
  private String written() {
    StringBuilder out = new StringBuilder();
    for (ByteBuf chunk; (chunk = channel.readOutbound()) != null; ) {
      out.append(chunk.toString(StandardCharsets.ISO_8859_1));
      chunk.release();
    }
    return out.toString();
  }

  /** Reads what reached Vert.x; returns the request heads among it. */
  private int requestsPassedOn() {
    int heads = 0;
    for (Object msg; (msg = channel.readInbound()) != null; ) {
      if (msg instanceof HttpRequest request) {
        assertThat(request.decoderResult().isSuccess()).isTrue();
        heads++;
      }
      ReferenceCountUtil.release(msg);
    }
    return heads;
  }

  /** Answers the request passed on, as Vert.x would, with a framed response. */
  private void respond() {
    DefaultFullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1,
            HttpResponseStatus.OK,
            Unpooled.copiedBuffer("{}", StandardCharsets.US_ASCII));
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 2);
    channel.writeOutbound(response);
    assertThat(written()).startsWith("HTTP/1.1 200 OK");
  }

  private static JsonObject errorOf(String response) {
    return new JsonObject(response.substring(response.indexOf("\r\n\r\n") + 4))
        .getJsonObject("error");
  }

  private double rejected(String reason) {
    var counter = registry.find("kvrouter_http_rejected_requests").tag("reason", reason).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void connectionThatSendsNothing_isClosedAtTheHeaderTimeoutWithoutAnAnswer() {
    open(false);
    elapse(Duration.ofSeconds(9));
    assertThat(channel.isOpen()).isTrue();
    elapse(Duration.ofSeconds(1));
    assertThat(channel.isOpen()).isFalse();
    assertThat(written()).isEmpty();
  }

  @Test
  void headThatTrickles_isAnswered408AtTheHeaderTimeoutFromTheOpening() {
    open(false);
    send("POST /v1/chat/completions HTTP/1.1\r\n");
    elapse(Duration.ofSeconds(5));
    send("Host: x\r\n");
    elapse(Duration.ofSeconds(4));
    assertThat(channel.isOpen()).isTrue();
    elapse(Duration.ofSeconds(1));
    String answer = written();
    assertThat(answer).startsWith("HTTP/1.1 408 Request Timeout").contains("connection: close");
    assertThat(errorOf(answer).getString("code")).isEqualTo("header_timeout");
    assertThat(errorOf(answer).getString("message")).contains("10 s");
    assertThat(channel.isOpen()).isFalse();
    assertThat(requestsPassedOn()).isZero();
    assertThat(rejected("header_timeout")).isEqualTo(1);
  }

  @Test
  void bodyThatStalls_isAnswered408AtTheBodyTimeout() {
    open(false);
    send("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\"");
    assertThat(requestsPassedOn()).isOne();
    elapse(Duration.ofSeconds(29));
    send(":1");
    assertThat(channel.isOpen()).isTrue();
    elapse(Duration.ofSeconds(1));
    String answer = written();
    assertThat(answer).startsWith("HTTP/1.1 408");
    assertThat(errorOf(answer).getString("code")).isEqualTo("body_timeout");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void requestBeingAnswered_isNotTimed() {
    open(false);
    send("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    assertThat(requestsPassedOn()).isOne();
    elapse(Duration.ofMinutes(10)); // a long generation
    assertThat(channel.isOpen()).isTrue();
    respond();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void keptAliveConnection_isClosedAtTheIdleTimeout_andItsNextHeadTimedFromItsFirstByte() {
    open(false);
    send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(requestsPassedOn()).isOne();
    respond();
    elapse(Duration.ofSeconds(59));
    send("GET /health HTTP/1.1\r\n"); // the next head starts: the header timeout from now
    elapse(Duration.ofSeconds(9));
    assertThat(channel.isOpen()).isTrue();
    elapse(Duration.ofSeconds(1));
    assertThat(written()).startsWith("HTTP/1.1 408");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void keptAliveConnectionWithNothingMore_isClosedAtTheIdleTimeoutWithoutAnAnswer() {
    open(false);
    send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    requestsPassedOn();
    respond();
    elapse(Duration.ofSeconds(59));
    assertThat(channel.isOpen()).isTrue();
    elapse(Duration.ofSeconds(1));
    assertThat(channel.isOpen()).isFalse();
    assertThat(written()).isEmpty();
  }

  @Test
  void malformedChunk_isAnswered400InsteadOfADroppedConnection() {
    open(false);
    send(
        "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "zz\r\nhello\r\n0\r\n\r\n");
    String answer = written();
    assertThat(answer).startsWith("HTTP/1.1 400 Bad Request");
    assertThat(errorOf(answer).getString("code")).isEqualTo("malformed_body");
    assertThat(errorOf(answer).getString("message")).contains("chunk size");
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void unframedResponse_closesTheConnectionAfterIt() {
    open(false);
    send("POST /v1/completions HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}");
    requestsPassedOn();
    DefaultHttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_0, HttpResponseStatus.OK);
    head.headers().set(HttpHeaderNames.CONNECTION, "keep-alive");
    channel.writeOutbound(
        head, new DefaultHttpContent(Unpooled.copiedBuffer("data: 1\n\n", StandardCharsets.UTF_8)));
    assertThat(written()).contains("connection: close").doesNotContain("keep-alive");
    assertThat(channel.isOpen()).isTrue();
    channel.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
    channel.runPendingTasks();
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void framedResponse_keepsTheConnection() {
    open(false);
    send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    requestsPassedOn();
    respond();
    channel.runPendingTasks();
    assertThat(channel.isOpen()).isTrue();
  }

  @Test
  void probeOnlyConnection_servesOneProbeAndCloses() {
    open(true);
    send("GET /health?verbose=1 HTTP/1.1\r\nHost: x\r\n\r\n");
    assertThat(requestsPassedOn()).isOne();
    DefaultFullHttpResponse response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
    response.headers().set(HttpHeaderNames.CONTENT_LENGTH, 0);
    channel.writeOutbound(response);
    assertThat(written()).contains("connection: close");
    channel.runPendingTasks();
    assertThat(channel.isOpen()).isFalse();
  }

  @Test
  void probeOnlyConnection_refusesAnythingElseWith503() {
    open(true);
    send("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
    HttpRequest request = channel.readInbound();
    assertThat(request.decoderResult().isFailure()).isTrue();
    ErrorResponses.ApiError error = ProtocolErrors.of(request.decoderResult().cause());
    assertThat(error.status()).isEqualTo(503);
    assertThat(error.code()).isEqualTo("connection_limit");
    assertThat((Object) channel.readInbound()).as("its body is dropped").isNull();
  }
}
