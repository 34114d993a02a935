package io.kvrouter.protocol.dynamo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.AddRequest;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Free;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.MarkPrefillCompleted;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.PrefillLoadHint;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The replica-sync events against fixtures written by hand from the Rust types and rmp_serde's
 * rules ({@code docs/notes/dynamo-replica-sync.md} §2, §3): named maps in declaration order,
 * smallest integer and string forms, unit variants as strings, the struct variant as a one-entry
 * map. Fixtures are hex with {@code "text"} for a string's UTF-8 bytes (its header written before
 * it in hex).
 */
class ActiveSequenceEventCodecTest {
  private static final WorkerRank W7 = new WorkerRank("7", 0);

  /** Hex, with quoted text standing for its UTF-8 bytes. */
  private static byte[] fixture(String spec) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String[] parts = spec.split("\"", -1);
    for (int i = 0; i < parts.length; i++) {
      byte[] bytes =
          i % 2 == 1
              ? parts[i].getBytes(StandardCharsets.UTF_8)
              : HexFormat.of().parseHex(parts[i].replaceAll("\\s", ""));
      out.writeBytes(bytes);
    }
    return out.toByteArray();
  }

  private static final String FREE_REQ_1 =
      "85 aa \"request_id\" a5 \"req-1\" a6 \"worker\" 82 a9 \"worker_id\" 07 a7 \"dp_rank\" 00"
          + " a4 \"data\" a4 \"Free\" a9 \"router_id\" 2a a9 \"lora_name\" c0";

  @Test
  void free_isTheUnitVariantAsAString() {
    ActiveSequenceEvent free = new ActiveSequenceEvent("req-1", W7, Free.INSTANCE, 42, null, null);

    assertThat(ActiveSequenceEventCodec.encode(free)).isEqualTo(fixture(FREE_REQ_1));
    assertThat(ActiveSequenceEventCodec.decode(fixture(FREE_REQ_1))).isEqualTo(free);
  }

  @Test
  void markPrefillCompleted_withLoraAndARankAndALargeRouterId() {
    ActiveSequenceEvent mark =
        new ActiveSequenceEvent(
            "r",
            new WorkerRank("18446744073709551615", 3),
            MarkPrefillCompleted.INSTANCE,
            -1L,
            null,
            "lora-a");
    byte[] expected =
        fixture(
            "85 aa \"request_id\" a1 \"r\" a6 \"worker\" 82 a9 \"worker_id\" cf ffffffffffffffff"
                + " a7 \"dp_rank\" 03 a4 \"data\" b4 \"MarkPrefillCompleted\""
                + " a9 \"router_id\" cf ffffffffffffffff a9 \"lora_name\" a6 \"lora-a\"");

    assertThat(ActiveSequenceEventCodec.encode(mark)).isEqualTo(expected);
    assertThat(ActiveSequenceEventCodec.decode(expected)).isEqualTo(mark);
  }

  private static final String ADD_DATA =
      "81 aa \"AddRequest\" 84 ae \"token_sequence\" 92 01 cd 0100"
          + " b4 \"track_prefill_tokens\" c3 b6 \"expected_output_tokens\" c0"
          + " b1 \"prefill_load_hint\" 82 d9 20 \"initial_effective_prefill_tokens\" 20"
          + " b9 \"expected_prefill_duration\" 82 a4 \"secs\" 01 a5 \"nanos\" ce 1dcd6500";

  @Test
  void addRequest_isAOneEntryMapOfItsNamedFields() {
    ActiveSequenceEvent add =
        new ActiveSequenceEvent(
            "req-1",
            W7,
            new AddRequest(
                new long[] {1, 256}, true, null, new PrefillLoadHint(32, Duration.ofMillis(1500))),
            42,
            null,
            null);
    byte[] expected =
        fixture(
            "85 aa \"request_id\" a5 \"req-1\" a6 \"worker\" 82 a9 \"worker_id\" 07 a7 \"dp_rank\" 00"
                + " a4 \"data\" "
                + ADD_DATA
                + " a9 \"router_id\" 2a a9 \"lora_name\" c0");

    assertThat(ActiveSequenceEventCodec.encode(add)).isEqualTo(expected);
    assertThat(ActiveSequenceEventCodec.decode(expected)).isEqualTo(add);
  }

  @Test
  void stride_isWrittenOnlyWhenSet_beforeTheLoraName() {
    ActiveSequenceEvent strided = new ActiveSequenceEvent("req-1", W7, Free.INSTANCE, 42, 4, null);
    byte[] expected =
        fixture(
            "86 aa \"request_id\" a5 \"req-1\" a6 \"worker\" 82 a9 \"worker_id\" 07 a7 \"dp_rank\" 00"
                + " a4 \"data\" a4 \"Free\" a9 \"router_id\" 2a a6 \"stride\" 04 a9 \"lora_name\" c0");

    assertThat(ActiveSequenceEventCodec.encode(strided)).isEqualTo(expected);
    assertThat(ActiveSequenceEventCodec.decode(expected)).isEqualTo(strided);
  }

  @Test
  void batch_isAMapOfEvents() {
    ActiveSequenceEvent free = new ActiveSequenceEvent("req-1", W7, Free.INSTANCE, 42, null, null);
    byte[] expected = fixture("81 a6 \"events\" 92 " + FREE_REQ_1 + " " + FREE_REQ_1);

    assertThat(ActiveSequenceEventCodec.encodeBatch(List.of(free, free))).isEqualTo(expected);
    assertThat(ActiveSequenceEventCodec.decodeBatch(expected)).containsExactly(free, free);
    assertThat(ActiveSequenceEventCodec.decodeBatch(fixture("81 a6 \"events\" 90"))).isEmpty();
  }

  /** Serde reads fields by name in any order, skips unknown ones and defaults the optional ones. */
  @Test
  void decode_anyOrder_unknownKeysSkipped_absentOptionalFieldsDefaulted() {
    byte[] reordered =
        fixture(
            "86 a9 \"router_id\" 2a a4 \"data\" 81 aa \"AddRequest\" 81 a5 \"extra\" 93 01 02 03"
                + " a7 \"unknown\" 82 a1 \"a\" c0 a1 \"b\" c3"
                + " a6 \"worker\" 83 a7 \"dp_rank\" 01 a3 \"new\" c0 a9 \"worker_id\" 07"
                + " aa \"request_id\" a1 \"x\" af \"published_at_ns\" 05");

    ActiveSequenceEvent decoded = ActiveSequenceEventCodec.decode(reordered);

    assertThat(decoded)
        .isEqualTo(
            new ActiveSequenceEvent(
                "x",
                new WorkerRank("7", 1),
                new AddRequest(null, true, null, null),
                42,
                null,
                null));
  }

  @Test
  void decode_rejectsWhatSerdeRejects_namingThePath() {
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(fixture(FREE_REQ_1.replace("a5 \"req-1\"", "05"))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("request_id:");
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(
                    fixture(
                        "84 a6 \"worker\" 82 a9 \"worker_id\" 07 a7 \"dp_rank\" 00"
                            + " a4 \"data\" a4 \"Free\" a9 \"router_id\" 2a a9 \"lora_name\" c0")))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("request_id: required field is missing");
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(
                    fixture(FREE_REQ_1.replace("\"Free\"", "\"Gone\""))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageContaining("data: unknown variant 'Gone'");
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(
                    fixture(FREE_REQ_1.replace("85 aa", "86 a9 \"router_id\" 01 aa"))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("router_id: duplicate field");
    assertThatThrownBy(() -> ActiveSequenceEventCodec.decode(fixture(FREE_REQ_1 + " c0")))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageContaining("trailing bytes");
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(
                    fixture(
                        FREE_REQ_1.replace(
                            "a4 \"Free\"",
                            "81 aa \"AddRequest\" 81 b6 \"expected_output_tokens\" cf 0000000100000000"))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("data.AddRequest.expected_output_tokens:");
    assertThatThrownBy(
            () ->
                ActiveSequenceEventCodec.decode(
                    fixture(
                        FREE_REQ_1.replace(
                            "a4 \"Free\"",
                            "81 aa \"AddRequest\" 81 b4 \"track_prefill_tokens\" 01"))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("data.AddRequest.track_prefill_tokens:");
  }

  @Test
  void batch_ofMoreThan256Events_isRefusedBothWays() {
    ActiveSequenceEvent free = new ActiveSequenceEvent("r", W7, Free.INSTANCE, 1, null, null);
    List<ActiveSequenceEvent> tooMany = new ArrayList<>();
    for (int i = 0; i < 257; i++) {
      tooMany.add(free);
    }
    assertThatThrownBy(() -> ActiveSequenceEventCodec.encodeBatch(tooMany))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] header = fixture("81 a6 \"events\" dc 0101");
    assertThatThrownBy(() -> ActiveSequenceEventCodec.decodeBatch(header))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("events:");
  }

  /** Random events of every shape come back equal, alone and in batches. */
  @Test
  void randomEvents_roundTrip() {
    Random random = new Random(11);
    for (int round = 0; round < 300; round++) {
      List<ActiveSequenceEvent> events = new ArrayList<>();
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        ActiveSequenceEvent event = randomEvent(random);
        events.add(event);
        assertThat(ActiveSequenceEventCodec.decode(ActiveSequenceEventCodec.encode(event)))
            .isEqualTo(event);
      }
      assertThat(ActiveSequenceEventCodec.decodeBatch(ActiveSequenceEventCodec.encodeBatch(events)))
          .isEqualTo(events);
    }
  }

  private static ActiveSequenceEvent randomEvent(Random random) {
    ActiveSequenceEvent.Data data =
        switch (random.nextInt(3)) {
          case 0 -> Free.INSTANCE;
          case 1 -> MarkPrefillCompleted.INSTANCE;
          default -> {
            long[] hashes =
                random.nextBoolean() ? null : random.longs(random.nextInt(40)).toArray();
            PrefillLoadHint hint =
                random.nextBoolean()
                    ? null
                    : new PrefillLoadHint(
                        random.nextLong() & Long.MAX_VALUE,
                        random.nextBoolean()
                            ? null
                            : Duration.ofSeconds(
                                random.nextLong() & Long.MAX_VALUE, random.nextInt(1_000_000_000)));
            Long expected = random.nextBoolean() ? null : random.nextLong() & 0xFFFF_FFFFL;
            yield new AddRequest(hashes, random.nextBoolean(), expected, hint);
          }
        };
    return new ActiveSequenceEvent(
        "req-" + random.nextInt(),
        new WorkerRank(Long.toUnsignedString(random.nextLong()), random.nextInt(8)),
        data,
        random.nextLong(),
        random.nextInt(4) == 0 ? 1 + random.nextInt(16) : null,
        random.nextBoolean() ? null : "lora-" + random.nextInt(3));
  }
}
