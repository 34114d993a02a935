package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of Dynamo's TCP request plane, client and call-home listener ({@code DYN_TCP_*}).
 *
 * @param maxMessageSize largest frame accepted or sent, in bytes ({@code DYN_TCP_MAX_MESSAGE_SIZE})
 * @param requestTimeout how long to wait for a worker's acknowledgement ({@code
 *     DYN_TCP_REQUEST_TIMEOUT})
 * @param poolSize most connections kept open to one worker address ({@code DYN_TCP_POOL_SIZE})
 * @param connectTimeout how long to wait for a connection to open ({@code DYN_TCP_CONNECT_TIMEOUT})
 * @param responseStreamHost where the call-home listener binds ({@code
 *     DYN_TCP_RESPONSE_STREAM_HOST})
 * @param responseStreamPort the call-home listener's port, 0 for any free port ({@code
 *     DYN_TCP_RESPONSE_STREAM_PORT})
 * @param responseStreamAdvertiseHost the host workers are told to call back; {@code null} means the
 *     local address of the connection the request went out on, which the worker can always reach
 *     ({@code DYN_TCP_RESPONSE_STREAM_ADVERTISE_HOST})
 * @param callHomeTimeout how long a worker that accepted a request has to call back (open its
 *     response stream with the handshake) before the request counts as failed at that worker
 *     (Dynamo's frontend waits 10 s for the handshake)
 * @param prologueTimeout how long a worker that called back may take to send its prologue. Dynamo
 *     sets no limit there (the prologue follows the engine's {@code generate()}, which may wait for
 *     a model load or a queue); the router gives it the stream inactivity timeout ({@code
 *     --worker-stream-idle-timeout-secs}), so a worker that hangs before its prologue is caught as
 *     one that hangs mid-stream is
 * @param responseStreams which response transport each worker is asked to use: a call-home
 *     connection per response or the multiplexed {@code tcp_response_mux_v1} streams
 * @param tls TLS on the listener and on the connections this process opens ({@code DYN_TCP_TLS_*})
 */
public record TcpConfig(
    int maxMessageSize,
    Duration requestTimeout,
    int poolSize,
    Duration connectTimeout,
    String responseStreamHost,
    int responseStreamPort,
    String responseStreamAdvertiseHost,
    Duration callHomeTimeout,
    Duration prologueTimeout,
    ResponseStreams responseStreams,
    TcpTls tls) {

  public static final int DEFAULT_MAX_MESSAGE_SIZE = 32 * 1024 * 1024;
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(5);
  public static final int DEFAULT_POOL_SIZE = 100;
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_CALL_HOME_TIMEOUT = Duration.ofSeconds(10);

  /** The default of {@code --worker-stream-idle-timeout-secs}, which the router passes here. */
  public static final Duration DEFAULT_PROLOGUE_TIMEOUT = Duration.ofSeconds(120);

  public TcpConfig {
    if (maxMessageSize < 1024) {
      throw new IllegalArgumentException("maxMessageSize must be at least 1024 bytes");
    }
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(responseStreamHost, "responseStreamHost");
    Objects.requireNonNull(callHomeTimeout, "callHomeTimeout");
    Objects.requireNonNull(prologueTimeout, "prologueTimeout");
    Objects.requireNonNull(responseStreams, "responseStreams");
    Objects.requireNonNull(tls, "tls");
    if (poolSize < 1) {
      throw new IllegalArgumentException("poolSize must be at least 1");
    }
    if (responseStreamPort < 0 || responseStreamPort > 65535) {
      throw new IllegalArgumentException("responseStreamPort out of range");
    }
  }

  /** Settings in plain text, whose workers all answer on call-home connections. */
  public TcpConfig(
      int maxMessageSize,
      Duration requestTimeout,
      int poolSize,
      Duration connectTimeout,
      String responseStreamHost,
      int responseStreamPort,
      String responseStreamAdvertiseHost,
      Duration callHomeTimeout,
      Duration prologueTimeout) {
    this(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        callHomeTimeout,
        prologueTimeout,
        ResponseStreams.CALL_HOME,
        TcpTls.NONE);
  }

  /** Settings with Dynamo's 10 s call-home timeout and the default prologue timeout. */
  public TcpConfig(
      int maxMessageSize,
      Duration requestTimeout,
      int poolSize,
      Duration connectTimeout,
      String responseStreamHost,
      int responseStreamPort,
      String responseStreamAdvertiseHost) {
    this(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        DEFAULT_CALL_HOME_TIMEOUT,
        DEFAULT_PROLOGUE_TIMEOUT);
  }

  /** The same settings with another call-home timeout. */
  public TcpConfig withCallHomeTimeout(Duration timeout) {
    return new TcpConfig(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        timeout,
        prologueTimeout,
        responseStreams,
        tls);
  }

  /** The same settings with another prologue timeout. */
  public TcpConfig withPrologueTimeout(Duration timeout) {
    return new TcpConfig(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        callHomeTimeout,
        timeout,
        responseStreams,
        tls);
  }

  /** The same settings with another choice of response transport per worker. */
  public TcpConfig withResponseStreams(ResponseStreams streams) {
    return new TcpConfig(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        callHomeTimeout,
        prologueTimeout,
        streams,
        tls);
  }

  /** The same settings with TLS. */
  public TcpConfig withTls(TcpTls newTls) {
    return new TcpConfig(
        maxMessageSize,
        requestTimeout,
        poolSize,
        connectTimeout,
        responseStreamHost,
        responseStreamPort,
        responseStreamAdvertiseHost,
        callHomeTimeout,
        prologueTimeout,
        responseStreams,
        newTls);
  }

  /** Dynamo's defaults, with the call-home listener on {@code host} and a free port. */
  public static TcpConfig defaults(String host) {
    return defaults(host, DEFAULT_MAX_MESSAGE_SIZE);
  }

  /** Dynamo's defaults with another largest frame, as a worker process takes them. */
  public static TcpConfig defaults(String host, int maxMessageSize) {
    return new TcpConfig(
        maxMessageSize,
        DEFAULT_REQUEST_TIMEOUT,
        DEFAULT_POOL_SIZE,
        DEFAULT_CONNECT_TIMEOUT,
        host,
        0,
        null);
  }
}
