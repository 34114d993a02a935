package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.vertx.core.buffer.Buffer;

/**
 * A request as a worker takes it off the wire: the TwoPart payload of a request frame, its control
 * header checked for what this worker can serve (a single request answered by a stream over a TCP
 * call-home, body in JSON or msgpack). The body is parsed by what the endpoint takes: {@link
 * #request()} for generate.
 *
 * @param requestId the frontend's request id, also the engine's
 * @param callHome where to dial back
 * @param subject what to say in the handshake
 * @param body the request, in {@code codec}
 * @param codec the control message's {@code payload_codec}: the body's, and the response items'
 */
record InboundRequest(
    String requestId, HostAndPort callHome, String subject, Buffer body, PayloadCodec codec) {

  /** Parses a request frame's payload; throws {@link TcpCodecException} saying what is wrong. */
  static InboundRequest parse(Buffer payload, int maxMessageSize) {
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
    require(
        control.connectionInfo() != null
            && RequestControlMessage.TCP_SERVER.equals(control.connectionInfo().transport()),
        "unsupported response transport "
            + (control.connectionInfo() == null ? null : control.connectionInfo().transport()));
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
    return new InboundRequest(control.id(), callHome, info.subject(), envelope.body(), codec);
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
