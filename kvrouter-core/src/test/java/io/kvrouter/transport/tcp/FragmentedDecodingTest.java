package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The decoders give the same frames however the input is cut: whole, one byte at a time, and at
 * random split points (seeded, so a failure repeats).
 */
class FragmentedDecodingTest {
  private static final int MAX = TcpConfig.DEFAULT_MAX_MESSAGE_SIZE;
  private static final long SEED = 0x5eed_2026L;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "two_part_request.hex", "handshake.hex", "prologue_ok.hex", "prologue_error.hex",
        "data_item.hex", "data_item_finished.hex", "error_item.hex", "error_item_legacy.hex",
        "complete_final.hex", "sentinel.hex", "stop.hex", "kill.hex"
      })
  void twoPartFixture(String fixture) {
    checkAllCuts(Golden.load(fixture), 1, this::twoPartDecoder);
  }

  @Test
  void callHomeSequence() {
    Buffer stream =
        concat(
            "handshake.hex",
            "prologue_ok.hex",
            "data_item.hex",
            "data_item_finished.hex",
            "error_item.hex",
            "complete_final.hex",
            "sentinel.hex");
    checkAllCuts(stream, 7, this::twoPartDecoder);
  }

  @Test
  void requestFrame() {
    checkAllCuts(Golden.load("request_frame.hex"), 1, this::requestDecoder);
  }

  @Test
  void pipelinedRequestFrames() {
    checkAllCuts(
        concat("request_frame.hex", "request_frame.hex", "request_frame.hex"),
        3,
        this::requestDecoder);
  }

  @Test
  void acks() {
    checkAllCuts(
        concat("ack_accepted.hex", "ack_rejected.hex", "ack_accepted.hex"), 3, this::ackDecoder);
  }

  private BiConsumer<Buffer, Consumer<Object>> twoPartDecoder() {
    TwoPartDecoder decoder = new TwoPartDecoder(MAX);
    return (chunk, out) -> decoder.decode(chunk, out::accept);
  }

  private BiConsumer<Buffer, Consumer<Object>> requestDecoder() {
    RequestFrameDecoder decoder = new RequestFrameDecoder(MAX);
    return (chunk, out) -> decoder.decode(chunk, out::accept);
  }

  private BiConsumer<Buffer, Consumer<Object>> ackDecoder() {
    AckDecoder decoder = new AckDecoder(MAX);
    return (chunk, out) -> decoder.decode(chunk, out::accept);
  }

  private static void checkAllCuts(
      Buffer input, int expectedFrames, Supplier<BiConsumer<Buffer, Consumer<Object>>> decoders) {
    List<Object> whole = feed(input, List.of(input.length()), decoders.get());
    assertThat(whole).hasSize(expectedFrames);

    List<Integer> ones = new ArrayList<>();
    for (int i = 0; i < input.length(); i++) {
      ones.add(1);
    }
    assertThat(feed(input, ones, decoders.get())).isEqualTo(whole);

    Random random = new Random(SEED);
    for (int round = 0; round < 50; round++) {
      List<Integer> sizes = new ArrayList<>();
      for (int left = input.length(); left > 0; ) {
        int size = Math.min(left, 1 + random.nextInt(Math.max(1, input.length() / 3)));
        sizes.add(size);
        left -= size;
      }
      assertThat(feed(input, sizes, decoders.get())).as("split %s", sizes).isEqualTo(whole);
    }
  }

  private static List<Object> feed(
      Buffer input, List<Integer> sizes, BiConsumer<Buffer, Consumer<Object>> decoder) {
    List<Object> out = new ArrayList<>();
    int offset = 0;
    for (int size : sizes) {
      decoder.accept(input.getBuffer(offset, offset + size), out::add);
      offset += size;
    }
    return out;
  }

  private static Buffer concat(String... fixtures) {
    Buffer out = Buffer.buffer();
    for (String fixture : fixtures) {
      out.appendBuffer(Golden.load(fixture));
    }
    return out;
  }
}
