package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Every frame of a {@code tcp_response_mux_v1} connection against its golden fixture (the encoder
 * writes the fixture, the decoder reads it back), and the malformed input the decoder refuses.
 */
class MuxFrameCodecTest {
  private static final int MAX = RawPeers.MAX;
  static final UUID STREAM = UUID.fromString("7b4e1f2a-0c3d-4e5f-8a6b-9c0d1e2f3a4b");
  static final UUID FRONTEND = UUID.fromString("6f1c2d3e-4a5b-4c6d-8e7f-0a1b2c3d4e5f");
  static final UUID CONNECTION = UUID.fromString("0b9e8d7c-6b5a-4948-b7a6-958473625140");

  @Test
  void prologue() {
    check("mux_prologue_ok.hex", json(MuxFrameKind.PROLOGUE, "{\"error\":null}"));
    MuxFrame error =
        check(
            "mux_prologue_error.hex",
            json(MuxFrameKind.PROLOGUE, "{\"error\":\"engine exploded\"}"));
    assertThat(WireJson.read(error.payload(), StreamPrologue.class, "prologue"))
        .isEqualTo(new StreamPrologue("engine exploded"));
  }

  @Test
  void dataCarriesTheCallHomeEnvelope() {
    MuxFrame data =
        check(
            "mux_data.hex",
            new MuxFrame(
                MuxFrameKind.DATA,
                STREAM,
                ResponseEnvelope.item(
                    StreamItem.of(EngineOutput.tokens(11, 12)), PayloadCodec.JSON)));
    Buffer callHome = Golden.load("data_item.hex");
    assertThat(data.payload()).isEqualTo(callHome.getBuffer(24, callHome.length()));
    check(
        "mux_data_complete_final.hex",
        new MuxFrame(MuxFrameKind.DATA, STREAM, ResponseEnvelope.last(PayloadCodec.JSON)));
  }

  @Test
  void emptyFrames() {
    check("mux_end.hex", MuxFrame.empty(MuxFrameKind.END, STREAM));
    check("mux_stop.hex", MuxFrame.empty(MuxFrameKind.STOP, STREAM));
    check("mux_kill.hex", MuxFrame.empty(MuxFrameKind.KILL, STREAM));
  }

  @Test
  void windowUpdate() {
    assertThat(check("mux_window_update.hex", MuxFrame.windowUpdate(STREAM, 65_536)).credits())
        .isEqualTo(65_536);
  }

  @Test
  void reset() {
    assertThat(
            check("mux_reset.hex", MuxFrame.reset(STREAM, "response sender dropped before finish"))
                .resetReason())
        .isEqualTo("response sender dropped before finish");
  }

  @Test
  void connectionAck() {
    MuxFrame ack = check("mux_connection_ack.hex", MuxFrame.connectionAck(987_654));
    assertThat(ack.ackOffset()).isEqualTo(987_654);
    assertThat(ack.streamId()).isEqualTo(MuxFrame.NIL);
    assertThat(ack.encodedLength()).isEqualTo(32);
  }

  @Test
  void handshakeAndItsAck() {
    Buffer golden = Golden.load("mux_handshake.hex");
    assertThat(MuxHandshake.of(FRONTEND, CONNECTION).encode(MAX)).isEqualTo(golden);
    TwoPartMessage frame = TwoPartDecoder.decodeWhole(golden, MAX);
    assertThat(WireJson.read(frame.header(), MuxHandshake.class, "handshake"))
        .isEqualTo(MuxHandshake.of(FRONTEND, CONNECTION));

    Buffer ack = Golden.load("mux_handshake_ack.hex");
    assertThat(MuxHandshake.ack(MAX)).isEqualTo(ack);
    MuxHandshake.requireAck(TwoPartDecoder.decodeWhole(ack, MAX));
  }

  @Test
  void anAckAtAnotherOffsetOrOfAnotherKindIsRefused() {
    Buffer offsetOne = MuxHandshake.ack(MAX);
    offsetOne.setByte(offsetOne.length() - 1, (byte) 1);
    assertThatThrownBy(() -> MuxHandshake.requireAck(TwoPartDecoder.decodeWhole(offsetOne, MAX)))
        .hasMessageContaining("invalid response mux connection ack");
    Buffer kill = MuxHandshake.ack(MAX);
    kill.setByte(24, (byte) MuxFrameKind.KILL.code());
    assertThatThrownBy(() -> MuxHandshake.requireAck(TwoPartDecoder.decodeWhole(kill, MAX)))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void framesSplitAnywhereDecodeTheSame() {
    Buffer both = Golden.load("mux_data.hex").copy().appendBuffer(Golden.load("mux_end.hex"));
    for (int split = 1; split < both.length(); split++) {
      MuxFrameDecoder decoder = new MuxFrameDecoder(MAX);
      List<MuxFrame> out = new ArrayList<>();
      decoder.decode(both.getBuffer(0, split), out::add);
      decoder.decode(both.getBuffer(split, both.length()), out::add);
      assertThat(out)
          .extracting(MuxFrame::kind)
          .containsExactly(MuxFrameKind.DATA, MuxFrameKind.END);
    }
  }

  @Test
  void unknownKindIsRefused() {
    Buffer bad = Golden.load("mux_end.hex").copy();
    bad.setByte(4, (byte) 99);
    assertThatThrownBy(() -> decode(bad))
        .hasMessageContaining("unknown response mux frame kind 99");
  }

  @Test
  void flagsOrReservedBitsAreRefused() {
    Buffer flags = Golden.load("mux_end.hex").copy();
    flags.setByte(5, (byte) 1);
    assertThatThrownBy(() -> decode(flags)).hasMessageContaining("unsupported flags");
    Buffer reserved = Golden.load("mux_end.hex").copy();
    reserved.setByte(7, (byte) 1);
    assertThatThrownBy(() -> decode(reserved)).hasMessageContaining("unsupported flags");
  }

  @Test
  void aLengthOverTheLimitIsRefusedBeforeThePayloadArrives() {
    Buffer header = Golden.load("mux_data.hex").getBuffer(0, MuxFrame.HEADER_BYTES);
    MuxFrameDecoder decoder = new MuxFrameDecoder(MuxFrame.HEADER_BYTES + 61);
    assertThatThrownBy(() -> decoder.decode(header, frame -> {}))
        .hasMessageContaining("response mux frame size 86 exceeds maximum 85");
    Buffer huge = header.copy();
    huge.setUnsignedInt(0, 0xffff_ffffL);
    assertThatThrownBy(() -> new MuxFrameDecoder(MAX).decode(huge, frame -> {}))
        .hasMessageContaining("exceeds maximum " + MAX);
    assertThatThrownBy(
            () ->
                MuxFrameEncoder.encode(
                    new MuxFrame(MuxFrameKind.DATA, STREAM, Buffer.buffer(new byte[62])),
                    MuxFrame.HEADER_BYTES + 61))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void theNilUuidBelongsToConnectionFramesOnly() {
    assertThatThrownBy(() -> decode(encode(MuxFrame.empty(MuxFrameKind.END, MuxFrame.NIL))))
        .hasMessageContaining("nil stream UUID");
    Buffer ack = Golden.load("mux_connection_ack.hex").copy();
    ack.setByte(8, (byte) 1);
    assertThatThrownBy(() -> decode(ack)).hasMessageContaining("nil stream UUID");
  }

  @Test
  void payloadSizesAreChecked() {
    assertThatThrownBy(
            () -> decode(encode(new MuxFrame(MuxFrameKind.KILL, STREAM, Buffer.buffer("x")))))
        .hasMessageContaining("must not contain a payload");
    assertThatThrownBy(
            () ->
                decode(
                    encode(
                        new MuxFrame(
                            MuxFrameKind.WINDOW_UPDATE, STREAM, Buffer.buffer(new byte[2])))))
        .hasMessageContaining("exactly four payload bytes");
    assertThatThrownBy(
            () ->
                decode(
                    encode(
                        new MuxFrame(
                            MuxFrameKind.CONNECTION_ACK,
                            MuxFrame.NIL,
                            Buffer.buffer(new byte[4])))))
        .hasMessageContaining("eight bytes");
  }

  private static MuxFrame json(MuxFrameKind kind, String json) {
    return new MuxFrame(kind, STREAM, Buffer.buffer(json));
  }

  /** The encoder writes the fixture; decoding the fixture gives the frame back. */
  private static MuxFrame check(String fixture, MuxFrame frame) {
    Buffer golden = Golden.load(fixture);
    assertThat(encode(frame)).as(fixture).isEqualTo(golden);
    MuxFrame decoded = decode(golden);
    assertThat(decoded.kind()).isEqualTo(frame.kind());
    assertThat(decoded.streamId()).isEqualTo(frame.streamId());
    assertThat(decoded.payload()).isEqualTo(frame.payload());
    return decoded;
  }

  private static Buffer encode(MuxFrame frame) {
    return MuxFrameEncoder.encode(frame, MAX);
  }

  private static MuxFrame decode(Buffer bytes) {
    List<MuxFrame> out = new ArrayList<>();
    new MuxFrameDecoder(MAX).decode(bytes, out::add);
    assertThat(out).hasSize(1);
    return out.get(0);
  }
}
