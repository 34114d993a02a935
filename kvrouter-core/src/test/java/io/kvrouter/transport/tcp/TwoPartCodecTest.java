package io.kvrouter.transport.tcp;

import static io.kvrouter.transport.tcp.Golden.bytes;
import static io.kvrouter.transport.tcp.Golden.u64;
import static io.kvrouter.transport.tcp.Golden.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TwoPartCodecTest {
  private static final int MAX = TcpConfig.DEFAULT_MAX_MESSAGE_SIZE;

  @Test
  void encodesAndDecodesTheGoldenEnvelope() {
    TwoPartMessage message =
        new TwoPartMessage(
            Buffer.buffer(WireSamples.CONTROL_JSON), Buffer.buffer(WireSamples.BODY_JSON));
    Buffer golden = Golden.load("two_part_request.hex");

    assertThat(TwoPartEncoder.encode(message, MAX)).isEqualTo(golden);
    assertThat(TwoPartDecoder.decodeWhole(golden, MAX)).isEqualTo(message);
  }

  @Test
  void nonZeroChecksumIsIgnoredAsInReleaseBuilds() {
    Buffer frame = bytes(u64(2), u64(3), u64(0x1234_5678_9abc_def0L), utf8("hhbbb"));

    TwoPartMessage message = TwoPartDecoder.decodeWhole(frame, MAX);

    assertThat(message).isEqualTo(new TwoPartMessage(Buffer.buffer("hh"), Buffer.buffer("bbb")));
  }

  @Test
  void emptyFrameHasNeitherPart() {
    TwoPartMessage message = TwoPartDecoder.decodeWhole(bytes(u64(0), u64(0), u64(0)), MAX);
    assertThat(message.hasHeader()).isFalse();
    assertThat(message.hasBody()).isFalse();
  }

  @Test
  void wholeDecodingRejectsTrailingOrMissingBytes() {
    Buffer golden = Golden.load("handshake.hex");
    Buffer trailing = golden.copy().appendByte((byte) 0);
    Buffer truncated = golden.getBuffer(0, golden.length() - 1);

    assertThatThrownBy(() -> TwoPartDecoder.decodeWhole(trailing, MAX))
        .isInstanceOf(TcpCodecException.class);
    assertThatThrownBy(() -> TwoPartDecoder.decodeWhole(truncated, MAX))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void decodesConsecutiveFramesInOrder() {
    Buffer stream =
        Golden.load("handshake.hex").copy().appendBuffer(Golden.load("prologue_ok.hex"));
    List<TwoPartMessage> frames = new ArrayList<>();

    new TwoPartDecoder(MAX).decode(stream, frames::add);

    assertThat(frames)
        .extracting(f -> f.header().toString())
        .containsExactly(
            "{\"subject\":\"subj-7\",\"stream_type\":\"response\"}", "{\"error\":null}");
  }
}
