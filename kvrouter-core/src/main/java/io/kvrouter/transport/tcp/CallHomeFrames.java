package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.util.RawValue;
import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;

/**
 * Builds the encoded frames of a call-home connection, each one TwoPart buffer: header-only for the
 * handshake, the prologue and control messages, body-only for data.
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

  /** An item of a generate stream. */
  Buffer item(StreamItem item) {
    return body(ResponseEnvelope.of(item));
  }

  /** The one item of another endpoint's answer: its JSON as it is. */
  Buffer answer(byte[] json) {
    return body(ResponseEnvelope.of(new RawValue(new String(json, StandardCharsets.UTF_8))));
  }

  Buffer completeFinal() {
    return body(ResponseEnvelope.COMPLETE_FINAL);
  }

  Buffer control(ControlMessage message) {
    return header(message);
  }

  private Buffer header(Object json) {
    return TwoPartEncoder.encode(TwoPartMessage.headerOnly(WireJson.write(json)), maxMessageSize);
  }

  private Buffer body(Object json) {
    return TwoPartEncoder.encode(TwoPartMessage.bodyOnly(WireJson.write(json)), maxMessageSize);
  }
}
