package io.kvrouter.transport.tcp;

import static io.kvrouter.transport.tcp.Golden.bytes;
import static io.kvrouter.transport.tcp.Golden.u16;
import static io.kvrouter.transport.tcp.Golden.u32;
import static io.kvrouter.transport.tcp.Golden.u64;
import static io.kvrouter.transport.tcp.Golden.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A length field over the limit fails as soon as the field itself is complete: the test feeds only
 * the prefix, so a decoder that waited for (or allocated) the announced bytes would not throw.
 */
class SizeLimitTest {
  private static final int MAX = 1024;

  @Test
  void requestPayloadLengthOverTheLimit() {
    RequestFrameDecoder decoder = new RequestFrameDecoder(MAX);
    Buffer prefix = bytes(u16(1), utf8("g"), u16(0), u32(0xFFFF_FFFFL));

    assertThatThrownBy(() -> decoder.decode(prefix, frame -> {}))
        .isInstanceOf(TcpCodecException.class)
        .hasMessageContaining("exceeds the limit of 1024");
  }

  @Test
  void requestFrameJustAtTheLimitIsAccepted() {
    int payload = MAX - 8 - 1;
    List<RequestFrame> frames = new ArrayList<>();
    new RequestFrameDecoder(MAX)
        .decode(bytes(u16(1), utf8("g"), u16(0), u32(payload), new byte[payload]), frames::add);
    assertThat(frames).hasSize(1);
    assertThatThrownBy(
            () ->
                new RequestFrameDecoder(MAX)
                    .decode(bytes(u16(1), utf8("g"), u16(0), u32(payload + 1)), f -> {}))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void requestHeadersLengthOverTheLimit() {
    Buffer prefix = bytes(u16(1), utf8("g"), u16(2000));
    assertThatThrownBy(() -> new RequestFrameDecoder(MAX).decode(prefix, f -> {}))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void twoPartLengthsOverTheLimit() {
    assertThatThrownBy(
            () -> new TwoPartDecoder(MAX).decode(bytes(u64(1000), u64(1000), u64(0)), m -> {}))
        .isInstanceOf(TcpCodecException.class)
        .hasMessageContaining("exceeds the limit of 1024");
    // 2^63 and above would wrap to a negative int or long
    assertThatThrownBy(
            () -> new TwoPartDecoder(MAX).decode(bytes(u64(-1L), u64(0), u64(0)), m -> {}))
        .isInstanceOf(TcpCodecException.class);
    assertThatThrownBy(
            () -> new TwoPartDecoder(MAX).decode(bytes(u64(0), u64(1L << 40), u64(0)), m -> {}))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void ackLengthOverTheLimit() {
    assertThatThrownBy(() -> new AckDecoder(MAX).decode(bytes(u32(0x7FFF_FFFFL)), a -> {}))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void aFailedDecoderStaysFailed() {
    TwoPartDecoder decoder = new TwoPartDecoder(MAX);
    assertThatThrownBy(() -> decoder.decode(bytes(u64(5000), u64(0), u64(0)), m -> {}))
        .isInstanceOf(TcpCodecException.class);
    assertThatThrownBy(() -> decoder.decode(Golden.load("sentinel.hex"), m -> {}))
        .isInstanceOf(TcpCodecException.class)
        .hasMessageContaining("failed earlier");
  }

  @Test
  void encodersRefuseFramesOverTheLimit() {
    Buffer big = Buffer.buffer(new byte[MAX]);
    assertThatThrownBy(() -> TwoPartEncoder.encode(TwoPartMessage.bodyOnly(big), MAX))
        .isInstanceOf(TcpCodecException.class);
    assertThatThrownBy(() -> RequestFrameEncoder.encode(new RequestFrame("g", Map.of(), big), MAX))
        .isInstanceOf(TcpCodecException.class);
  }
}
