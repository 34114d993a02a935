package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.buffer.Buffer;

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
    return data(ResponseEnvelope.item(item, codec));
  }

  /** The one item of another endpoint's answer: its JSON as it is, or that JSON in msgpack. */
  Buffer answer(byte[] json, PayloadCodec codec) {
    return data(ResponseEnvelope.answer(json, codec));
  }

  Buffer completeFinal(PayloadCodec codec) {
    return data(ResponseEnvelope.last(codec));
  }

  /** A data frame holding {@code envelope}, one encoded {@link ResponseEnvelope}. */
  Buffer data(Buffer envelope) {
    return TwoPartEncoder.encode(TwoPartMessage.bodyOnly(envelope), maxMessageSize);
  }

  Buffer control(ControlMessage message) {
    return header(message);
  }

  private Buffer header(Object json) {
    return TwoPartEncoder.encode(TwoPartMessage.headerOnly(WireJson.write(json)), maxMessageSize);
  }
}
