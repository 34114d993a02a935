package io.kvrouter.transport.tcp;

/**
 * The kinds of frame on a {@code tcp_response_mux_v1} connection: Dynamo's {@code MuxFrameKind}
 * ({@code lib/runtime/src/pipeline/network/tcp/mux.rs} at 06d22825), one byte on the wire. The
 * worker writes {@code PROLOGUE}, {@code DATA}, {@code END} and {@code RESET}; the frontend writes
 * {@code STOP}, {@code KILL}, {@code WINDOW_UPDATE}, {@code CONNECTION_ACK} and {@code RESET}.
 */
enum MuxFrameKind {
  PROLOGUE(1),
  DATA(2),
  END(3),
  STOP(4),
  KILL(5),
  WINDOW_UPDATE(6),
  RESET(7),
  CONNECTION_ACK(8);

  private final int code;

  MuxFrameKind(int code) {
    this.code = code;
  }

  int code() {
    return code;
  }

  /** The kind with wire code {@code code}; throws {@link TcpCodecException} for any other byte. */
  static MuxFrameKind of(int code) {
    for (MuxFrameKind kind : values()) {
      if (kind.code == code) {
        return kind;
      }
    }
    throw new TcpCodecException("unknown response mux frame kind " + code);
  }

  /** Whether a worker may send this kind to the frontend. */
  boolean fromWorker() {
    return this == PROLOGUE || this == DATA || this == END || this == RESET;
  }
}
