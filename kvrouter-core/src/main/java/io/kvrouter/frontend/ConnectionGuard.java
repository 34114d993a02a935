package io.kvrouter.frontend;

import io.kvrouter.config.ConnectionLimits;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Holds one client connection to what the router asks of a client, between Netty's HTTP codec and
 * Vert.x's connection (one instance per connection, on its event loop):
 *
 * <ul>
 *   <li>Deadlines ({@link ConnectionLimits}): a request head must arrive within the header timeout
 *       (from the connection's opening for its first request, from its first byte for later ones),
 *       its body within the body timeout after the head, and a connection with nothing in flight
 *       gets the idle timeout to start its next request. A late head or body is answered 408; a
 *       connection that sent nothing or is idle is closed without an answer. While the router owes
 *       a response (a generation may take minutes) nothing is timed here.
 *   <li>A chunked body Netty cannot decode is answered 400 instead of dropping the connection.
 *   <li>A connection over the cap ({@link ConnectionLimit.Admission#PROBES_ONLY}) serves one probe
 *       request and is closed; anything else on it is refused with 503.
 *   <li>A response without framing (no {@code Content-Length}, not chunked: an HTTP/1.0 stream)
 *       ends only when the connection does, so it is sent with {@code Connection: close} and the
 *       connection is closed after it, whatever keep-alive the client asked for.
 * </ul>
 *
 * Refused requests are counted and logged through {@link ClientFaults}; errors are OpenAI bodies. A
 * refused head is handed on as a failed decoder result, so Vert.x's invalid-request handler answers
 * it; what Vert.x never sees (a late or malformed body) is answered here.
 */
final class ConnectionGuard extends ChannelDuplexHandler {
  private static final Set<String> PROBE_PATHS = Set.of("/health", "/live", "/metrics");

  private enum Phase {
    NONE,
    IDLE,
    HEAD,
    BODY
  }

  private final ConnectionLimits limits;
  private final boolean probesOnly;
  private final ClientFaults faults;
  private ChannelHandlerContext ctx;
  private Phase phase = Phase.NONE;
  private ScheduledFuture<?> deadline;

  /** Bytes of the next request head have come, and the head is not complete. */
  private boolean headStarted;

  /** A request head was passed on and its body has not ended. */
  private boolean readingBody;

  /** Requests passed on whose responses have not ended. */
  private int responsesOwed;

  /** The current response's head is out and its end is not. */
  private boolean responseStarted;

  private boolean closeAfterResponse;

  /** A request was refused and the connection is closing: inbound messages are dropped. */
  private boolean discarding;

  ConnectionGuard(ConnectionLimits limits, boolean probesOnly, ClientFaults faults) {
    this.limits = limits;
    this.probesOnly = probesOnly;
    this.faults = faults;
  }

  /** The handler to put before the HTTP decoder: it tells this guard when head bytes arrive. */
  ChannelHandler headBytes() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext context, Object msg) {
        if (msg instanceof ByteBuf bytes && bytes.isReadable() && !readingBody && !discarding) {
          headStarted = true;
          rearm();
        }
        context.fireChannelRead(msg);
      }
    };
  }

  @Override
  public void handlerAdded(ChannelHandlerContext context) {
    ctx = context;
    arm(Phase.HEAD, limits.headerTimeout());
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext context) {
    disarm();
  }

  @Override
  public void channelInactive(ChannelHandlerContext context) throws Exception {
    disarm();
    super.channelInactive(context);
  }

  @Override
  public void channelRead(ChannelHandlerContext context, Object msg) {
    if (discarding) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpRequest request) {
      headStarted = false;
      responsesOwed++;
      if (request.decoderResult().isSuccess() && probesOnly && !isProbe(request)) {
        request.setDecoderResult(
            DecoderResult.failure(
                new RequestRejection(
                    new ErrorResponses.ApiError(
                        503,
                        "service_unavailable",
                        "connection_limit",
                        "The router is serving its maximum number of connections"
                            + " (--http-max-connections); retry later",
                        null))));
      }
      if (request.decoderResult().isFailure()) {
        // Vert.x's invalid-request handler answers it and closes the connection.
        discarding = true;
        disarm();
        context.fireChannelRead(msg);
        return;
      }
      readingBody = true;
    } else if (msg instanceof HttpContent content && content.decoderResult().isFailure()) {
      Throwable cause = content.decoderResult().cause();
      ReferenceCountUtil.release(msg);
      refuse(ProtocolErrors.malformedBody(cause), "chunked body");
      return;
    }
    if (msg instanceof LastHttpContent) {
      readingBody = false;
    }
    rearm();
    context.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext context, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response) {
      if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        context.write(msg, promise); // 100 Continue: not the response
        return;
      }
      responseStarted = true;
      if (probesOnly || !framed(response)) {
        response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        closeAfterResponse = true;
      }
    }
    ChannelPromise written = promise;
    if (msg instanceof LastHttpContent) {
      responseStarted = false;
      responsesOwed = Math.max(0, responsesOwed - 1);
      if (closeAfterResponse) {
        written = promise.unvoid();
        written.addListener(ChannelFutureListener.CLOSE);
      }
      rearm();
    }
    context.write(msg, written);
  }

  /** Whether the client can tell where {@code response}'s body ends without the connection's. */
  private static boolean framed(HttpResponse response) {
    int status = response.status().code();
    return HttpUtil.isContentLengthSet(response)
        || HttpUtil.isTransferEncodingChunked(response)
        || status == 204
        || status == 304;
  }

  private static boolean isProbe(HttpRequest request) {
    if (!request.method().equals(HttpMethod.GET) && !request.method().equals(HttpMethod.HEAD)) {
      return false;
    }
    String uri = request.uri();
    int end = uri.length();
    for (int i = 0; i < uri.length(); i++) {
      if (uri.charAt(i) == '?' || uri.charAt(i) == '#') {
        end = i;
        break;
      }
    }
    return PROBE_PATHS.contains(uri.substring(0, end));
  }

  /** Sets the deadline the connection's state calls for. */
  private void rearm() {
    if (discarding) {
      disarm();
    } else if (readingBody) {
      arm(Phase.BODY, limits.bodyTimeout());
    } else if (headStarted) {
      arm(Phase.HEAD, limits.headerTimeout());
    } else if (responsesOwed > 0) {
      disarm();
    } else {
      arm(Phase.IDLE, limits.idleTimeout());
    }
  }

  /** Starts a deadline for {@code next}, unless one for it is running already. */
  private void arm(Phase next, Duration after) {
    if (phase == next) {
      return;
    }
    disarm();
    phase = next;
    deadline = ctx.executor().schedule(() -> expired(next), after.toNanos(), TimeUnit.NANOSECONDS);
  }

  private void disarm() {
    phase = Phase.NONE;
    if (deadline != null) {
      deadline.cancel(false);
      deadline = null;
    }
  }

  private void expired(Phase expired) {
    if (phase != expired) {
      return;
    }
    deadline = null;
    phase = Phase.NONE;
    switch (expired) {
      case HEAD -> {
        if (headStarted) {
          refuse(timeout("header_timeout", "request head", limits.headerTimeout()), "slow head");
        } else {
          ctx.close(); // opened and never used
        }
      }
      case BODY ->
          refuse(timeout("body_timeout", "request body", limits.bodyTimeout()), "slow body");
      case IDLE -> ctx.close();
      case NONE -> {}
    }
  }

  private static ErrorResponses.ApiError timeout(String code, String what, Duration limit) {
    return new ErrorResponses.ApiError(
        408,
        "invalid_request_error",
        code,
        "The " + what + " did not arrive within " + seconds(limit) + " s",
        null);
  }

  private static String seconds(Duration duration) {
    return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString();
  }

  /**
   * Refuses the request being read: answers {@code error} and closes the connection, or only closes
   * it when the answer could be taken for an earlier request's (one is still owed).
   */
  private void refuse(ErrorResponses.ApiError error, String what) {
    faults.rejected(error, what + " from " + ctx.channel().remoteAddress());
    boolean answerable = !responseStarted && responsesOwed == (readingBody ? 1 : 0);
    discarding = true;
    disarm();
    if (answerable) {
      ctx.writeAndFlush(response(error)).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.close();
    }
  }

  private static FullHttpResponse response(ErrorResponses.ApiError error) {
    ByteBuf body = Unpooled.wrappedBuffer(error.body().toBuffer().getBytes());
    FullHttpResponse response =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(error.status()), body);
    response
        .headers()
        .set(HttpHeaderNames.CONTENT_TYPE, "application/json")
        .set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes())
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return response;
  }
}
