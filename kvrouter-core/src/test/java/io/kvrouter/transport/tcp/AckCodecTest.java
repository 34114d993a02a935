package io.kvrouter.transport.tcp;

import static io.kvrouter.transport.tcp.Golden.bytes;
import static io.kvrouter.transport.tcp.Golden.u32;
import static io.kvrouter.transport.tcp.Golden.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AckCodecTest {
  private static final String OVERLOADED = "Server overloaded: worker at capacity";

  @Test
  void fixturesMatchTheSpecifiedLayout() {
    assertThat(Golden.load("ack_accepted.hex")).isEqualTo(bytes(u32(0)));
    assertThat(Golden.load("ack_rejected.hex")).isEqualTo(bytes(u32(37), utf8(OVERLOADED)));
  }

  @Test
  void encodesTheGoldenAcks() {
    assertThat(AckEncoder.encode(Ack.ACCEPTED)).isEqualTo(Golden.load("ack_accepted.hex"));
    assertThat(AckEncoder.encode(Ack.rejected(OVERLOADED)))
        .isEqualTo(Golden.load("ack_rejected.hex"));
  }

  @Test
  void decodesTheGoldenAcks() {
    assertThat(decode(Golden.load("ack_accepted.hex"))).containsExactly(Ack.ACCEPTED);
    assertThat(decode(Golden.load("ack_rejected.hex"))).containsExactly(Ack.rejected(OVERLOADED));
    assertThat(decode(Golden.load("ack_accepted.hex")).get(0).accepted()).isTrue();
    assertThat(decode(Golden.load("ack_rejected.hex")).get(0).accepted()).isFalse();
  }

  @Test
  void unknownEndpointRejectionUsesDynamosPrefix() {
    assertThat(Ack.unavailable("unknown endpoint nope").rejection())
        .isEqualTo("Server unavailable: unknown endpoint nope");
  }

  private static List<Ack> decode(Buffer input) {
    List<Ack> acks = new ArrayList<>();
    new AckDecoder(TcpConfig.DEFAULT_MAX_MESSAGE_SIZE).decode(input, acks::add);
    return acks;
  }
}
