package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.vertx.core.buffer.Buffer;
import java.util.Set;

/**
 * A request as a worker takes it off the wire: the TwoPart payload of a request frame, its control
 * header checked for what this worker can serve (a single request answered by a stream over a TCP
 * call-home or a {@code tcp_response_mux_v1} stream, as the worker accepts; body in JSON or
 * msgpack). The body is parsed by what the endpoint takes: {@link #request()} for generate.
 *
 * @param requestId the frontend's request id, also the engine's
 * @param callHome where to dial back, on a call-home response; {@code null} on a mux one
 * @param subject what to say in the call-home handshake; {@code null} on a mux response
 * @param mux where to stream a mux response; {@code null} on a call-home one
 * @param body the request, in {@code codec}
 * @param codec the control message's {@code payload_codec}: the body's, and the response items'
 */
record InboundRequest(
    String requestId,
    HostAndPort callHome,
    String subject,
    ResponseMuxInfo mux,
    Buffer body,
    PayloadCodec codec) {

  /** Refusals in Dynamo's words: a v1.5 worker's {@code TcpStreamConnectionInfo::try_from}. */
  static final String CALL_HOME_ONLY =
      "Invalid transport; TcpClient requires the transport to be `tcp_server`; however %s was"
          + " passed";

  /** A mandatory-mux worker's {@code ResponseMuxConnectionInfo::try_from} (tcp.rs @06d22825). */
  static final String MUX_ONLY =
      "Invalid transport; response mux requires `tcp_response_mux_v1`; got %s";

  /** Parses a request frame's payload; throws {@link TcpCodecException} saying what is wrong. */
  static InboundRequest parse(Buffer payload, int maxMessageSize) {
    return parse(payload, maxMessageSize, Set.of(ResponseStreamKind.values()));
  }

  /**
   * Parses a request frame's payload for a worker that answers only on {@code accepted} response
   * transports; throws {@link TcpCodecException} saying what is wrong.
   */
  static InboundRequest parse(
      Buffer payload, int maxMessageSize, Set<ResponseStreamKind> accepted) {
    TwoPartMessage envelope = TwoPartDecoder.decodeWhole(payload, maxMessageSize);
    require(envelope.hasHeader() && envelope.hasBody(), "the envelope needs a header and a body");
    RequestControlMessage control =
        WireJson.read(envelope.header(), RequestControlMessage.class, "request control message");
    require(control.id() != null && !control.id().isEmpty(), "no request id");
    require(
        RequestControlMessage.SINGLE_IN.equals(control.requestType()),
        "unsupported request_type " + control.requestType());
    require(
        RequestControlMessage.MANY_OUT.equals(control.responseType()),
        "unsupported response_type " + control.responseType());
    PayloadCodec codec;
    try {
      codec = PayloadCodec.fromWire(control.payloadCodec());
    } catch (IllegalArgumentException e) {
      throw new TcpCodecException(e.getMessage(), e);
    }
    require(control.connectionInfo() != null, "no connection_info");
    String transport = control.connectionInfo().transport();
    boolean mux = RequestControlMessage.TCP_RESPONSE_MUX.equals(transport);
    if (!mux && !RequestControlMessage.TCP_SERVER.equals(transport)) {
      throw new TcpCodecException("unsupported response transport " + transport);
    }
    if (!accepted.contains(mux ? ResponseStreamKind.MUX : ResponseStreamKind.CALL_HOME)) {
      throw new TcpCodecException(
          String.format(
              accepted.contains(ResponseStreamKind.MUX) ? MUX_ONLY : CALL_HOME_ONLY, transport));
    }
    if (mux) {
      return new InboundRequest(control.id(), null, null, muxInfo(control), envelope.body(), codec);
    }
    ResponseStreamInfo info = ResponseStreamInfo.fromJson(control.connectionInfo().info());
    require(
        ResponseStreamInfo.RESPONSE.equals(info.streamType()),
        "unsupported stream_type " + info.streamType());
    require(
        control.id().equals(info.context()),
        "connection context " + info.context() + " does not match request id " + control.id());
    require(
        info.subject() != null && info.address() != null,
        "connection info without subject or address");
    HostAndPort callHome;
    try {
      callHome = HostAndPort.parse(info.address());
    } catch (IllegalArgumentException e) {
      throw new TcpCodecException(e.getMessage(), e);
    }
    return new InboundRequest(control.id(), callHome, info.subject(), null, envelope.body(), codec);
  }

  /** Checks a mux response's connection info as Dynamo's worker does (version 1, same context). */
  private static ResponseMuxInfo muxInfo(RequestControlMessage control) {
    ResponseMuxInfo info = ResponseMuxInfo.fromJson(control.connectionInfo().info());
    require(
        info.address() != null && info.frontendServerId() != null && info.streamId() != null,
        "response mux connection info without address, frontend_server_id or stream_id");
    require(
        info.version() == MuxHandshake.VERSION,
        "unsupported response mux version "
            + info.version()
            + "; expected "
            + MuxHandshake.VERSION);
    require(
        control.id().equals(info.context()),
        "response mux context mismatch: expected " + control.id() + ", got " + info.context());
    try {
      HostAndPort.parse(info.address());
    } catch (IllegalArgumentException e) {
      throw new TcpCodecException(e.getMessage(), e);
    }
    return info;
  }

  /** The question's JSON, whatever codec it came in; throws {@link TcpCodecException}. */
  byte[] questionJson() {
    if (codec == PayloadCodec.JSON) {
      return body.getBytes();
    }
    return WireJson.bytes(Payloads.read(body, JsonNode.class, codec, "question"));
  }

  /** The body as a generate request; throws {@link TcpCodecException} if it is not one. */
  PreprocessedRequest request() {
    return Payloads.read(body, PreprocessedRequest.class, codec, "request body");
  }

  private static void require(boolean condition, String problem) {
    if (!condition) {
      throw new TcpCodecException(problem);
    }
  }
}
