package io.kvrouter.transport.tcp;

import io.vertx.core.buffer.Buffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.UUID;

/**
 * One frame of a {@code tcp_response_mux_v1} connection after its handshake: Dynamo's {@code
 * MuxFrame} and {@code MuxCodec} ({@code lib/runtime/src/pipeline/network/tcp/mux.rs} at
 * 06d22825e9111caec638c748f59d81e637747e3b). A fixed 24-byte header, then the payload:
 *
 * <pre>
 * +----------------+------+-------+----------+--------------------+-------------+
 * | payload length | kind | flags | reserved | stream id (UUID)   | payload     |
 * | u32 BE         | u8   | u8 =0 | u16 BE=0 | 16 bytes, RFC 4122 | length bytes|
 * +----------------+------+-------+----------+--------------------+-------------+
 *
 * End of stream 7b4e...:  00 00 00 00 | 03 | 00 | 00 00 | 7b 4e .. (16 bytes)
 * </pre>
 *
 * <p>Payloads by kind: {@code PROLOGUE} the JSON {@code ResponseStreamPrologue} ({@code
 * {"error":null}}); {@code DATA} one {@code NetworkStreamWrapper} exactly as the body of a
 * call-home data frame ({@link ResponseEnvelope}); {@code END} empty; {@code STOP} and {@code KILL}
 * empty (anything else is rejected); {@code WINDOW_UPDATE} exactly 4 bytes, the credits granted
 * (u32 BE); {@code RESET} optional UTF-8 text saying why (Dynamo's worker sends {@code response
 * sender dropped before finish} when its sender is dropped, and nothing when it refuses a frame);
 * {@code CONNECTION_ACK} exactly 8 bytes, the cumulative count of {@code DATA} bytes (headers
 * included) the frontend has decoded on the connection (u64 BE). Only {@code CONNECTION_ACK}
 * carries the nil UUID, and it must.
 *
 * @param payload never {@code null}; empty for the kinds without payload
 */
record MuxFrame(MuxFrameKind kind, UUID streamId, Buffer payload) {

  static final int HEADER_BYTES = 24;
  static final UUID NIL = new UUID(0, 0);

  MuxFrame {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(streamId, "streamId");
    Objects.requireNonNull(payload, "payload");
  }

  static MuxFrame empty(MuxFrameKind kind, UUID streamId) {
    return new MuxFrame(kind, streamId, Buffer.buffer(0));
  }

  static MuxFrame windowUpdate(UUID streamId, long credits) {
    return new MuxFrame(
        MuxFrameKind.WINDOW_UPDATE, streamId, Buffer.buffer(4).appendInt((int) credits));
  }

  static MuxFrame connectionAck(long decodedBytes) {
    return new MuxFrame(
        MuxFrameKind.CONNECTION_ACK, NIL, Buffer.buffer(8).appendLong(decodedBytes));
  }

  static MuxFrame reset(UUID streamId, String reason) {
    return new MuxFrame(
        MuxFrameKind.RESET,
        streamId,
        Buffer.buffer(reason == null ? new byte[0] : reason.getBytes(StandardCharsets.UTF_8)));
  }

  /** Header plus payload: what the frame costs in flow-control credits. */
  int encodedLength() {
    return HEADER_BYTES + payload.length();
  }

  /** The credits of a {@code WINDOW_UPDATE}, unsigned. */
  long credits() {
    return payload.getUnsignedInt(0);
  }

  /** The offset of a {@code CONNECTION_ACK}; Dynamo's worker reads it as u64. */
  long ackOffset() {
    return payload.getLong(0);
  }

  /** A {@code RESET}'s reason, empty when it gave none. */
  String resetReason() {
    return payload.toString(StandardCharsets.UTF_8);
  }

  /**
   * Checks the rules of {@code MuxFrame::validate}: the nil UUID on connection frames only, no
   * payload on {@code STOP}/{@code KILL}, 4 bytes on {@code WINDOW_UPDATE}, 8 on {@code
   * CONNECTION_ACK}. Throws {@link TcpCodecException}.
   */
  MuxFrame validate() {
    boolean connectionFrame = kind == MuxFrameKind.CONNECTION_ACK;
    if (NIL.equals(streamId) != connectionFrame) {
      throw new TcpCodecException("only connection-level frames must use the nil stream UUID");
    }
    int length = payload.length();
    switch (kind) {
      case STOP, KILL -> require(length == 0, "control frame must not contain a payload");
      case WINDOW_UPDATE ->
          require(length == 4, "credit update must contain exactly four payload bytes");
      case CONNECTION_ACK ->
          require(length == 8, "response mux connection ACK must contain eight bytes");
      default -> {
        // Prologue, Data, End and Reset carry what the sender put there
      }
    }
    return this;
  }

  private static void require(boolean condition, String problem) {
    if (!condition) {
      throw new TcpCodecException(problem);
    }
  }
}
