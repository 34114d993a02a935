package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;

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
    return data(ResponseEnvelope.item(item));
  }

  /** The one item of another endpoint's answer: its JSON as it is. */
  Buffer answer(byte[] json) {
    return data(ResponseEnvelope.answer(json));
  }

  Buffer completeFinal() {
    return data(ResponseEnvelope.lastJson());
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
