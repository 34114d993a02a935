package io.kvrouter.protocol.dynamo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link DynamoEventCodec} against hand-written goldens ({@code src/test/resources/golden/dynamo},
 * from the reference's example), u64 edges, seeded random round trips, and malformed input: each
 * must fail as a {@link DynamoEventFormatException} naming the field, never as anything else.
 */
class DynamoEventCodecTest {
  private static final long MAX_U64 = -1L;
  private static final long TWO_63 = Long.MIN_VALUE;

  private static DynamoRouterEvent event(String worker, int dp, long id, KvCacheEvent data) {
    return new DynamoRouterEvent(new RouterEvent(new WorkerRank(worker, dp), data), id);
  }

  static Stream<Arguments> goldens() {
    return Stream.of(
        Arguments.of(
            "stored_example.json",
            event("7", 0, 1, KvCacheEvent.stored(1L, new StoredBlock(2, 3)))),
        Arguments.of(
            "stored_root_two_blocks.json",
            event(
                "42",
                1,
                0,
                KvCacheEvent.stored(
                    null,
                    new StoredBlock(1001, Long.parseUnsignedLong("15310707395893867146")),
                    new StoredBlock(1002, Long.parseUnsignedLong("15292316782987903195"))))),
        Arguments.of("removed.json", event("7", 0, 2, KvCacheEvent.removed(2, 1002, MAX_U64))),
        Arguments.of("cleared.json", event("7", 3, 3, KvCacheEvent.cleared())),
        Arguments.of(
            "u64_edges.json",
            event(
                "18446744073709551615",
                Integer.MAX_VALUE,
                MAX_U64,
                KvCacheEvent.stored(
                    TWO_63,
                    new StoredBlock(MAX_U64, Long.MAX_VALUE),
                    new StoredBlock(0, TWO_63 + 1)))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void golden_decodes_andReencodesByteExact(String file, DynamoRouterEvent expected) {
    byte[] golden = golden(file);
    assertThat(DynamoEventCodec.decode(golden)).isEqualTo(expected);
    assertThat(new String(DynamoEventCodec.encode(expected), StandardCharsets.UTF_8))
        .isEqualTo(new String(golden, StandardCharsets.UTF_8));
  }

  @Test
  void referenceExample_isWhatWeWrite() {
    assertThat(
            DynamoEventCodec.encodeToString(
                event("7", 0, 1, KvCacheEvent.stored(1L, new StoredBlock(2, 3)))))
        .isEqualTo(
            "{\"worker_id\":7,\"event\":{\"event_id\":1,\"data\":{\"stored\":{\"parent_hash\":1,"
                + "\"blocks\":[{\"block_hash\":2,\"tokens_hash\":3,\"mm_extra_info\":null}]}},"
                + "\"dp_rank\":0}}");
  }

  @Test
  void e3Fields_unknownFields_andAnyOrder_areIgnored() {
    assertThat(DynamoEventCodec.decode(golden("e3_extra_fields.json")))
        .isEqualTo(event("7", 1, 9, KvCacheEvent.stored(1L, new StoredBlock(2, 3))));
  }

  @Test
  void batch_golden_roundTrips() {
    byte[] golden = golden("batch_shutdown.json");
    DynamoKvCacheEvents expected =
        new DynamoKvCacheEvents(
            List.of(
                new DynamoKvCacheEvent(5, KvCacheEvent.removed(11), 0),
                new DynamoKvCacheEvent(6, KvCacheEvent.cleared(), 0)),
            true);
    assertThat(DynamoEventCodec.decodeBatch(golden)).isEqualTo(expected);
    assertThat(DynamoEventCodec.encodeBatch(expected)).isEqualTo(golden);
    assertThat(DynamoEventCodec.decodeBatch("{\"events\":[]}".getBytes(StandardCharsets.UTF_8)))
        .isEqualTo(new DynamoKvCacheEvents(List.of(), false));
  }

  @Test
  void optionalFields_defaultAsSerdeDoes() {
    // dp_rank absent -> 0; parent_hash absent -> root; {"cleared":null} is serde's map form.
    assertThat(
            DynamoEventCodec.decode(
                "{\"worker_id\":1,\"event\":{\"event_id\":0,\"data\":{\"stored\":{\"blocks\":[]}}}}"))
        .isEqualTo(event("1", 0, 0, new KvCacheEvent.Stored(null, List.of())));
    assertThat(
            DynamoEventCodec.decode(
                "{\"worker_id\":1,\"event\":{\"event_id\":0,\"data\":{\"cleared\":null},\"dp_rank\":null}}"))
        .isEqualTo(event("1", 0, 0, KvCacheEvent.cleared()));
  }

  @Test
  void u64Edges_roundTripExactly() {
    long[] edges = {0, 1, Long.MAX_VALUE, TWO_63, TWO_63 + 1, MAX_U64 - 1, MAX_U64};
    for (long v : edges) {
      DynamoRouterEvent e =
          event(Long.toUnsignedString(v), 0, v, KvCacheEvent.stored(v, new StoredBlock(v, v)));
      String json = DynamoEventCodec.encodeToString(e);
      assertThat(json).contains("\"worker_id\":" + Long.toUnsignedString(v) + ",");
      assertThat(DynamoEventCodec.decode(json)).isEqualTo(e);
    }
  }

  @Test
  void randomEvents_roundTrip() {
    SplittableRandom random = new SplittableRandom(20260514);
    for (int i = 0; i < 2_000; i++) {
      DynamoRouterEvent e =
          event(
              Long.toUnsignedString(random.nextLong()),
              random.nextInt(8),
              random.nextLong(),
              randomData(random));
      byte[] json = DynamoEventCodec.encode(e);
      assertThat(DynamoEventCodec.decode(json)).as("seed case %d", i).isEqualTo(e);
      assertThat(DynamoEventCodec.encode(DynamoEventCodec.decode(json))).isEqualTo(json);
    }
  }

  private static KvCacheEvent randomData(SplittableRandom random) {
    switch (random.nextInt(3)) {
      case 0:
        List<StoredBlock> blocks = new ArrayList<>();
        for (int b = random.nextInt(5); b > 0; b--) {
          blocks.add(new StoredBlock(random.nextLong(), random.nextLong()));
        }
        return new KvCacheEvent.Stored(random.nextBoolean() ? null : random.nextLong(), blocks);
      case 1:
        List<Long> hashes = new ArrayList<>();
        for (int b = random.nextInt(5); b > 0; b--) {
          hashes.add(random.nextLong());
        }
        return new KvCacheEvent.Removed(hashes);
      default:
        return KvCacheEvent.cleared();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"worker-a", "", "-1", "+7", "07", "18446744073709551616", " 7"})
  void encode_rejectsWorkerIdsDynamoCannotCarry(String workerId) {
    DynamoRouterEvent e = event(workerId, 0, 0, KvCacheEvent.cleared());
    assertThatThrownBy(() -> DynamoEventCodec.encode(e))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker id '" + workerId + "'")
        .hasMessageContaining("unsigned decimal u64");
  }

  static Stream<Arguments> malformed() {
    String ok = "{\"worker_id\":7,\"event\":{\"event_id\":1,\"data\":%s,\"dp_rank\":0}}";
    return Stream.of(
        Arguments.of("", "$: "),
        Arguments.of("not json", "$: malformed JSON"),
        Arguments.of("[1,2]", "$: expected an object, got ARRAY"),
        Arguments.of("{\"worker_id\":7,\"event\":{", "$: malformed JSON"),
        Arguments.of(String.format(ok, "\"cleared\"") + " {}", "$: malformed JSON"),
        Arguments.of("{\"worker_id\":7,\"worker_id\":8,\"event\":{}}", "$: malformed JSON"),
        Arguments.of(
            "{\"event\":{\"event_id\":1,\"data\":\"cleared\"}}",
            "worker_id: required field is missing"),
        Arguments.of(
            "{\"worker_id\":\"7\",\"event\":{\"event_id\":1,\"data\":\"cleared\"}}",
            "worker_id: expected an unsigned 64-bit integer, got STRING"),
        Arguments.of(
            "{\"worker_id\":-1,\"event\":{\"event_id\":1,\"data\":\"cleared\"}}",
            "worker_id: -1 is outside the u64 range"),
        Arguments.of(
            "{\"worker_id\":18446744073709551616,\"event\":{\"event_id\":1,\"data\":\"cleared\"}}",
            "worker_id: 18446744073709551616 is outside the u64 range"),
        Arguments.of(
            "{\"worker_id\":7.5,\"event\":{\"event_id\":1,\"data\":\"cleared\"}}",
            "worker_id: expected an unsigned 64-bit integer, got NUMBER 7.5"),
        Arguments.of("{\"worker_id\":7}", "event: required field is missing"),
        Arguments.of("{\"worker_id\":7,\"event\":null}", "event: required field is null"),
        Arguments.of("{\"worker_id\":7,\"event\":[]}", "event: expected an object, got ARRAY"),
        Arguments.of(
            "{\"worker_id\":7,\"event\":{\"data\":\"cleared\"}}",
            "event.event_id: required field is missing"),
        Arguments.of(
            "{\"worker_id\":7,\"event\":{\"event_id\":1}}",
            "event.data: required field is missing"),
        Arguments.of(String.format(ok, "\"stored\""), "event.data: unknown variant \"stored\""),
        Arguments.of(
            String.format(ok, "{\"evicted\":{}}"), "event.data: unknown variant \"evicted\""),
        Arguments.of(String.format(ok, "{}"), "event.data: expected exactly one variant key"),
        Arguments.of(
            String.format(ok, "{\"removed\":{\"block_hashes\":[]},\"cleared\":null}"),
            "event.data: expected exactly one variant key"),
        Arguments.of(
            String.format(ok, "{\"cleared\":{}}"), "event.data.cleared: expected null, got OBJECT"),
        Arguments.of(
            String.format(ok, "{\"stored\":{\"parent_hash\":1}}"),
            "event.data.stored.blocks: required field is missing"),
        Arguments.of(
            String.format(ok, "{\"stored\":{\"blocks\":{}}}"),
            "event.data.stored.blocks: expected an array, got OBJECT"),
        Arguments.of(
            String.format(ok, "{\"stored\":{\"parent_hash\":\"1\",\"blocks\":[]}}"),
            "event.data.stored.parent_hash: expected an unsigned 64-bit integer, got STRING"),
        Arguments.of(
            String.format(
                ok,
                "{\"stored\":{\"blocks\":[{\"block_hash\":1,\"tokens_hash\":2},{\"block_hash\":3}]}}"),
            "event.data.stored.blocks[1].tokens_hash: required field is missing"),
        Arguments.of(
            String.format(ok, "{\"stored\":{\"blocks\":[{\"block_hash\":1e3,\"tokens_hash\":2}]}}"),
            "event.data.stored.blocks[0].block_hash: expected an unsigned 64-bit integer"),
        Arguments.of(
            String.format(ok, "{\"removed\":{}}"),
            "event.data.removed.block_hashes: required field is missing"),
        Arguments.of(
            String.format(ok, "{\"removed\":{\"block_hashes\":[1,true]}}"),
            "event.data.removed.block_hashes[1]: expected an unsigned 64-bit integer, got BOOLEAN"),
        Arguments.of(
            "{\"worker_id\":7,\"event\":{\"event_id\":1,\"data\":\"cleared\",\"dp_rank\":-1}}",
            "event.dp_rank: -1 is outside the u64 range"),
        Arguments.of(
            "{\"worker_id\":7,\"event\":{\"event_id\":1,\"data\":\"cleared\",\"dp_rank\":2147483648}}",
            "event.dp_rank: 2147483648 is outside 0..2147483647"));
  }

  @ParameterizedTest(name = "[{index}] {1}")
  @MethodSource("malformed")
  void malformed_failsNamingTheField(String json, String message) {
    assertThatThrownBy(() -> DynamoEventCodec.decode(json))
        .isInstanceOf(DynamoEventFormatException.class)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void malformedBatch_failsNamingTheField() {
    assertThatThrownBy(
            () ->
                DynamoEventCodec.decodeBatch(
                    "{\"events\":[{\"event_id\":1}]}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("events[0].data: required field is missing");
    assertThatThrownBy(
            () ->
                DynamoEventCodec.decodeBatch(
                    "{\"events\":[],\"shutdown\":1}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("shutdown: expected a boolean");
  }

  @Test
  void truncatedGoldens_alwaysFailAsFormatErrors() {
    byte[] golden = golden("u64_edges.json");
    for (int n = 0; n < golden.length - 1; n++) { // the last byte is the newline
      byte[] cut = java.util.Arrays.copyOf(golden, n);
      assertThatThrownBy(() -> DynamoEventCodec.decode(cut))
          .as("first %d bytes", n)
          .isInstanceOf(DynamoEventFormatException.class);
    }
  }

  /** The fixture without its trailing newline. */
  static byte[] golden(String name) {
    try (InputStream in =
        DynamoEventCodecTest.class.getResourceAsStream("/golden/dynamo/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing golden " + name);
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return (name.equals("e3_extra_fields.json") ? text : text.stripTrailing())
          .getBytes(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
