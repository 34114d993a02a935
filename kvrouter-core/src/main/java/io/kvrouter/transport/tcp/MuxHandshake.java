package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.buffer.Buffer;
import java.util.UUID;

/**
 * The first frame a worker writes on a new response-mux connection, and the frontend's answer:
 * Dynamo's {@code ConnectionHandshake::ResponseMux} and {@code MuxFrame::connection_ack(0)} ({@code
 * lib/runtime/src/pipeline/network/tcp/mux.rs} and {@code tcp/mux/client.rs} at 06d22825). Both are
 * TwoPart frames ({@link TwoPartMessage}); only after them does the connection switch to {@link
 * MuxFrame}s.
 *
 * <pre>
 * worker:   TwoPart header-only, serde's internally tagged enum:
 *           {"kind":"response_mux","version":1,"frontend_server_id":"<uuid>","connection_id":"<uuid>"}
 * frontend: TwoPart header = kind 08, flags 00, reserved 00 00, nil UUID (20 bytes),
 *                   body   = 00 00 00 00 00 00 00 00 (offset 0, u64 BE)
 * </pre>
 *
 * The worker refuses an answer that is not a connection ack at offset 0.
 */
@JsonPropertyOrder({"kind", "version", "frontend_server_id", "connection_id"})
record MuxHandshake(
    @JsonProperty("kind") String kind,
    @JsonProperty("version") int version,
    @JsonProperty("frontend_server_id") UUID frontendServerId,
    @JsonProperty("connection_id") UUID connectionId) {

  static final String KIND = "response_mux";
  static final int VERSION = 1;
  private static final int ACK_HEADER_BYTES = 20;

  static MuxHandshake of(UUID frontendServerId, UUID connectionId) {
    return new MuxHandshake(KIND, VERSION, frontendServerId, connectionId);
  }

  /** Whether a handshake header (a call-home's or this one) is a response-mux handshake. */
  static boolean isMux(JsonNode header) {
    return header.isObject() && header.has("kind");
  }

  Buffer encode(int maxMessageSize) {
    return TwoPartEncoder.encode(TwoPartMessage.headerOnly(WireJson.write(this)), maxMessageSize);
  }

  /** The frontend's connection ack, a TwoPart frame. */
  static Buffer ack(int maxMessageSize) {
    MuxFrame ack = MuxFrame.connectionAck(0);
    Buffer header =
        Buffer.buffer(ACK_HEADER_BYTES)
            .appendByte((byte) ack.kind().code())
            .appendByte((byte) 0)
            .appendShort((short) 0)
            .appendLong(0L)
            .appendLong(0L);
    return TwoPartEncoder.encode(new TwoPartMessage(header, ack.payload()), maxMessageSize);
  }

  /** Checks the frontend's answer to the handshake; throws {@link TcpCodecException}. */
  static void requireAck(TwoPartMessage answer) {
    Buffer header = answer.header();
    if (header.length() != ACK_HEADER_BYTES) {
      throw new TcpCodecException(
          "invalid response mux header length " + header.length() + ", expected 20");
    }
    if (header.getByte(1) != 0 || header.getShort(2) != 0) {
      throw new TcpCodecException("response mux frame has unsupported flags");
    }
    MuxFrame frame =
        new MuxFrame(
                MuxFrameKind.of(header.getByte(0) & 0xff),
                new UUID(header.getLong(4), header.getLong(12)),
                answer.body())
            .validate();
    if (frame.kind() != MuxFrameKind.CONNECTION_ACK || frame.ackOffset() != 0) {
      throw new TcpCodecException("frontend returned invalid response mux connection ack");
    }
  }
}
