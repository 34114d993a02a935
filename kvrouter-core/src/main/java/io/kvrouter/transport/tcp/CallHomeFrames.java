package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.util.RawValue;
import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Builds the encoded frames of a call-home connection, each one TwoPart buffer: header-only for the
 * handshake, the prologue and control messages (always JSON), body-only for data (in the request's
 * payload codec).
 */
final class CallHomeFrames {
  private final int maxMessageSize;

  CallHomeFrames(int maxMessageSize) {
    this.maxMessageSize = maxMessageSize;
  }

  Buffer handshake(String subject) {
    return header(new CallHomeHandshake(subject, ResponseStreamInfo.RESPONSE));
  }

  Buffer prologue(StreamPrologue prologue) {
    return header(prologue);
  }

  /** An item of a generate stream, in the request's payload codec. */
  Buffer item(StreamItem item, PayloadCodec codec) {
    return body(ResponseEnvelope.of(item), codec);
  }

  /** The one item of another endpoint's answer: its JSON as it is, or that JSON in msgpack. */
  Buffer answer(byte[] json, PayloadCodec codec) {
    if (codec == PayloadCodec.JSON) {
      return body(
          ResponseEnvelope.of(new RawValue(new String(json, StandardCharsets.UTF_8))), codec);
    }
    try {
      return body(ResponseEnvelope.of(WireJson.MAPPER.readTree(json)), codec);
    } catch (IOException e) {
      throw new TcpCodecException("the answer is not JSON: " + e.getMessage(), e);
    }
  }

  Buffer completeFinal(PayloadCodec codec) {
    return body(ResponseEnvelope.COMPLETE_FINAL, codec);
  }

  Buffer control(ControlMessage message) {
    return header(message);
  }

  private Buffer header(Object json) {
    return TwoPartEncoder.encode(TwoPartMessage.headerOnly(WireJson.write(json)), maxMessageSize);
  }

  private Buffer body(Object envelope, PayloadCodec codec) {
    return TwoPartEncoder.encode(
        TwoPartMessage.bodyOnly(Payloads.item(envelope, codec)), maxMessageSize);
  }
}
