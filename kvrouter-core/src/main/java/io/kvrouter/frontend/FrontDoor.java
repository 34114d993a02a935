package io.kvrouter.frontend;

import com.sun.management.UnixOperatingSystemMXBean;
import io.kvrouter.config.ConnectionLimits;
import io.kvrouter.config.TlsFiles;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerConnection;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection layer of the OpenAI HTTP server: how connections are admitted ({@link
 * ConnectionLimit}), decoded ({@link StrictRequestDecoder}) and held to their deadlines ({@link
 * ConnectionGuard}), and what a request that cannot be decoded is answered. One per process, shared
 * by the HTTP servers of every event loop.
 *
 * <p>Vert.x 5 has no public way to add Netty handlers to an HTTP server connection. Its connection
 * handler runs when the connection's pipeline is built, before any byte is read, and the connection
 * it is given ({@link HttpServerConnection}, Vert.x's internal type) exposes the pipeline; the
 * decoder is swapped and the guard added there, by the handler names Vert.x uses ({@value
 * #DECODER}, {@value #VERTX_HANDLER}).
 *
 * <p>With TLS ({@code --tls-cert-path}) the server speaks HTTPS only, HTTP/2 and HTTP/1.1 by ALPN;
 * the connection handler then runs after the handshake. An HTTP/1.1 connection gets the same
 * decoder and guard; an HTTP/2 connection is admitted by the same cap (a connection past it, probes
 * included, is closed) and held to HTTP/2's own limits (Vert.x's defaults, 100 concurrent streams a
 * connection), not to the guard's head and body deadlines, which are HTTP/1's. {@link #reloadTls}
 * gives every server the certificate the files hold now. HTTP/2 over cleartext is off: with it on,
 * Vert.x builds the HTTP/1 pipeline only once a first request has been decoded, too late for
 * either.
 */
final class FrontDoor {
  private static final Logger log = LoggerFactory.getLogger(FrontDoor.class);

  static final String DECODER = "httpDecoder";
  static final String VERTX_HANDLER = "handler";

  private final ConnectionLimits limits;
  private final ConnectionLimit connections;
  private final ClientFaults faults;
  private final HttpServerOptions options;
  private final TlsFiles tls;

  /** The servers made so far, one per event loop, whose certificate {@link #reloadTls} renews. */
  private final List<HttpServer> servers = new CopyOnWriteArrayList<>();

  FrontDoor(ConnectionLimits limits, MeterRegistry registry, ClientFaults faults) {
    this(limits, null, registry, faults);
  }

  /**
   * @param tls the certificate and key of an HTTPS server; null for plain HTTP
   */
  FrontDoor(ConnectionLimits limits, TlsFiles tls, MeterRegistry registry, ClientFaults faults) {
    this.tls = tls;
    this.limits = limits;
    this.connections = new ConnectionLimit(limits.maxConnections(), registry);
    openFileLimit()
        .flatMap(connections::descriptorShortfall)
        .ifPresent(shortfall -> log.warn("HTTP connection cap: {}", shortfall));
    this.faults = faults;
    this.options =
        new HttpServerOptions()
            .setTcpNoDelay(true)
            .setHttp2ClearTextEnabled(false)
            .setPerFrameWebSocketCompressionSupported(false)
            .setPerMessageWebSocketCompressionSupported(false);
    if (tls != null) {
      options.setSsl(true).setUseAlpn(true).setKeyCertOptions(keyCert(tls));
    }
  }

  private static PemKeyCertOptions keyCert(TlsFiles tls) {
    return new PemKeyCertOptions()
        .setCertPath(tls.cert().toString())
        .setKeyPath(tls.key().toString());
  }

  /**
   * Gives every server the certificate and key their files hold now; new connections get them, open
   * ones keep theirs. Fails, leaving the servers as they were, when the files do not make a key and
   * certificate.
   */
  Future<Void> reloadTls() {
    if (tls == null) {
      return Future.succeededFuture();
    }
    ServerSSLOptions renewed = new ServerSSLOptions().setKeyCertOptions(keyCert(tls));
    return Future.all(
            servers.stream().map(server -> server.updateSSLOptions(renewed, true)).toList())
        .mapEmpty();
  }

  /** The process's open-file limit, where the JVM tells it (Unix). */
  private static Optional<Long> openFileLimit() {
    return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
        ? Optional.of(unix.getMaxFileDescriptorCount())
        : Optional.empty();
  }

  /** An HTTP server for the calling event loop, serving {@code requests}; not listening yet. */
  HttpServer server(Vertx vertx, Handler<HttpServerRequest> requests) {
    HttpServer server =
        vertx
            .createHttpServer(options)
            .connectionHandler(this::accept)
            .invalidRequestHandler(this::answerInvalid)
            .requestHandler(requests);
    if (tls != null) {
      servers.add(server);
    }
    return server;
  }

  private void accept(HttpConnection connection) {
    ChannelPipeline pipeline =
        ((HttpServerConnection) connection).channelHandlerContext().pipeline();
    ConnectionLimit.Admission admission = connections.admit();
    if (admission == ConnectionLimit.Admission.REFUSED) {
      pipeline.channel().close();
      return;
    }
    if (pipeline.get(DECODER) == null) {
      // HTTP/2 (by ALPN): no HTTP/1 decoder to guard; requests go to probes only by HTTP/1
      if (admission == ConnectionLimit.Admission.PROBES_ONLY) {
        connections.release();
        pipeline.channel().close();
        return;
      }
      pipeline.channel().closeFuture().addListener(f -> connections.release());
      // a connection with nothing either way for the idle timeout gives its slot back
      pipeline.addFirst(
          "kvrouterH2Idle",
          new IdleStateHandler(0, 0, limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
      pipeline.addAfter("kvrouterH2Idle", "kvrouterH2IdleClose", new CloseWhenIdle());
      return;
    }
    pipeline.channel().closeFuture().addListener(f -> connections.release());
    pipeline.replace(DECODER, DECODER, new StrictRequestDecoder(options));
    ConnectionGuard guard =
        new ConnectionGuard(limits, admission == ConnectionLimit.Admission.PROBES_ONLY, faults);
    pipeline.addBefore(DECODER, "kvrouterHeadBytes", guard.headBytes());
    pipeline.addBefore(VERTX_HANDLER, "kvrouterGuard", guard);
  }

  /** Closes its connection when an {@link IdleStateHandler} says it has been idle. */
  private static final class CloseWhenIdle extends ChannelInboundHandlerAdapter {
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
      if (event instanceof IdleStateEvent) {
        ctx.close();
      } else {
        super.userEventTriggered(ctx, event);
      }
    }
  }

  /**
   * Answers a request whose head could not be decoded or was refused, with the OpenAI error its
   * cause calls for, and closes the connection: where its body ends is unknown.
   */
  private void answerInvalid(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    if (cause instanceof PrematureChannelClosureException) {
      return; // the client closed the connection in the middle of a head
    }
    ErrorResponses.ApiError error = ProtocolErrors.of(cause);
    faults.rejected(error, "request head from " + request.remoteAddress());
    request.response().putHeader("connection", "close");
    ErrorResponses.send(request.response(), error);
    request.connection().close();
  }
}
