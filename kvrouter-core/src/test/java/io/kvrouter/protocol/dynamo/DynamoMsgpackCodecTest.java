package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.E3Golden.concat;
import static io.kvrouter.protocol.dynamo.E3Golden.map;
import static io.kvrouter.protocol.dynamo.E3Golden.pack;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec.FieldSet;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec.TieredEvent;
import io.kvrouter.protocol.dynamo.E3Golden.Raw;
import io.kvrouter.protocol.dynamo.E3Golden.U64;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link DynamoMsgpackCodec} against the goldens laid out from the research notes ({@code
 * golden/dynamo-e3}), payloads in every stage's shape, u64 edges, seeded round trips, and malformed
 * input, which must fail as a {@link DynamoEventFormatException} naming the field.
 */
class DynamoMsgpackCodecTest {
  private static final long MAX_U64 = -1L;
  private static final long TWO_63 = Long.MIN_VALUE;

  /** The notes' worked example: worker 7, event 1, one block stored at the sequence start. */
  private static final DynamoRouterEvent EXAMPLE =
      event("7", 0, 1, KvCacheEvent.stored(null, new StoredBlock(0x1234, 0xABCD)));

  private static DynamoRouterEvent event(String worker, int dp, long id, KvCacheEvent data) {
    return new DynamoRouterEvent(new RouterEvent(new WorkerRank(worker, dp), data), id);
  }

  private static byte[] payloadOf(String frameFixture) {
    return EventEnvelopeCodec.decodeFrame(E3Golden.load(frameFixture)).payload();
  }

  // ------------------------------------------------------------------ goldens

  @Test
  void s1Golden_decodesToTheExample() {
    List<TieredEvent> events = DynamoMsgpackCodec.decodeTieredPayload(payloadOf("s1_frame.hex"));

    assertThat(events).containsExactly(new TieredEvent(EXAMPLE, "device", null));
    assertThat(events.get(0).targetsDeviceIndex()).isTrue();
  }

  @Test
  void s1Golden_isWhatEncodeWritesWithTheLegacyFields() {
    byte[] payload = payloadOf("s1_frame.hex");

    assertThat(payload).hasSize(154);
    assertThat(DynamoMsgpackCodec.encode(EXAMPLE, FieldSet.LEGACY)).isEqualTo(payload);
  }

  @Test
  void s2Golden_decodesAndEncodesAsALegacyBatch() {
    byte[] payload = payloadOf("s2_batch_frame.hex");

    assertThat(DynamoMsgpackCodec.decodePayload(payload)).containsExactly(EXAMPLE);
    assertThat(DynamoMsgpackCodec.encodeBatch(List.of(EXAMPLE), FieldSet.LEGACY))
        .isEqualTo(payload);
  }

  @Test
  void s3Golden_decodesAndIsWhatEncodeBatchWritesByDefault() {
    byte[] payload = payloadOf("s3_batch_frame.hex");

    assertThat(DynamoMsgpackCodec.decodeTieredPayload(payload))
        .containsExactly(new TieredEvent(EXAMPLE, "device", "worker"));
    assertThat(DynamoMsgpackCodec.encodeBatch(List.of(EXAMPLE))).isEqualTo(payload);
  }

  @Test
  void s3RemovedClearedGolden_roundTripsByteForByte() {
    byte[] payload = E3Golden.load("s3_removed_cleared_payload.hex");
    List<DynamoRouterEvent> expected =
        List.of(
            event("7", 0, 2, KvCacheEvent.removed(0x1234, MAX_U64)),
            event("7", 1, 3, KvCacheEvent.cleared()));

    assertThat(DynamoMsgpackCodec.decodePayload(payload)).isEqualTo(expected);
    assertThat(DynamoMsgpackCodec.encodeBatch(expected)).isEqualTo(payload);
  }

  @Test
  void encode_singleEventHasTheResidencyDomainByDefault() {
    byte[] current = DynamoMsgpackCodec.encode(EXAMPLE);

    assertThat(current[0]).isEqualTo((byte) 0x84);
    assertThat(DynamoMsgpackCodec.decodeTieredPayload(current))
        .containsExactly(new TieredEvent(EXAMPLE, "device", "worker"));
  }

  @Test
  void emptyBatch_isAnEmptyArray() {
    assertThat(DynamoMsgpackCodec.encodeBatch(List.of())).containsExactly(0x90);
    assertThat(DynamoMsgpackCodec.decodePayload(new byte[] {(byte) 0x90})).isEmpty();
  }

  // ------------------------------------------------------------------ u64 and round trips

  @Test
  void u64Edges_keepTheirBitsAndUseUint64AboveTwoTo63() {
    DynamoRouterEvent edges =
        event(
            "18446744073709551615",
            Integer.MAX_VALUE,
            MAX_U64,
            KvCacheEvent.stored(
                TWO_63, new StoredBlock(MAX_U64, Long.MAX_VALUE), new StoredBlock(0, TWO_63 + 1)));

    byte[] bytes = DynamoMsgpackCodec.encode(edges);

    assertThat(DynamoMsgpackCodec.decodePayload(bytes)).containsExactly(edges);
    String hex = HexFormat.of().formatHex(bytes);
    assertThat(hex)
        .contains("a9776f726b65725f6964" + "cfffffffffffffffff") // worker_id 2^64-1
        .contains("ab706172656e745f68617368" + "cf8000000000000000") // parent 2^63
        .contains("a764705f72616e6b" + "ce7fffffff"); // dp_rank 2^31-1
  }

  @Test
  void u64_readFromAnyIntegerForm() {
    // int8 5 for worker_id and int64 9 for event_id: serde takes non-negative signed forms too
    byte[] bytes =
        pack(
            map(
                "worker_id",
                new Raw(new byte[] {(byte) 0xd0, 5}),
                "event",
                map(
                    "event_id",
                    new Raw(HexFormat.of().parseHex("d30000000000000009")),
                    "data",
                    "cleared")));

    assertThat(DynamoMsgpackCodec.decodePayload(bytes))
        .containsExactly(event("5", 0, 9, KvCacheEvent.cleared()));
  }

  @Test
  void seededRandomEvents_roundTripInBothFieldSets() {
    SplittableRandom random = new SplittableRandom(20261123);
    for (int round = 0; round < 200; round++) {
      List<DynamoRouterEvent> batch = new ArrayList<>();
      for (int i = random.nextInt(4); i >= 0; i--) {
        batch.add(randomEvent(random));
      }
      FieldSet fields = round % 2 == 0 ? FieldSet.CURRENT : FieldSet.LEGACY;

      assertThat(DynamoMsgpackCodec.decodePayload(DynamoMsgpackCodec.encodeBatch(batch, fields)))
          .isEqualTo(batch);
      assertThat(DynamoMsgpackCodec.decodePayload(DynamoMsgpackCodec.encode(batch.get(0), fields)))
          .containsExactly(batch.get(0));
    }
  }

  private static DynamoRouterEvent randomEvent(SplittableRandom random) {
    KvCacheEvent data;
    switch (random.nextInt(3)) {
      case 0 -> {
        List<StoredBlock> blocks = new ArrayList<>();
        for (int i = random.nextInt(5); i >= 0; i--) {
          blocks.add(new StoredBlock(u64(random), u64(random)));
        }
        data = new KvCacheEvent.Stored(random.nextBoolean() ? null : u64(random), blocks);
      }
      case 1 -> {
        List<Long> hashes = new ArrayList<>();
        for (int i = random.nextInt(5); i > 0; i--) {
          hashes.add(u64(random));
        }
        data = new KvCacheEvent.Removed(hashes);
      }
      default -> data = KvCacheEvent.cleared();
    }
    return event(
        Long.toUnsignedString(u64(random)),
        random.nextInt(0, Integer.MAX_VALUE),
        u64(random),
        data);
  }

  /** Values of every msgpack width, both halves of the u64 range. */
  private static long u64(SplittableRandom random) {
    return switch (random.nextInt(6)) {
      case 0 -> random.nextLong(128);
      case 1 -> random.nextLong(256);
      case 2 -> random.nextLong(65_536);
      case 3 -> random.nextLong(1L << 32);
      case 4 -> random.nextLong(Long.MAX_VALUE);
      default -> random.nextLong() | TWO_63;
    };
  }

  // ------------------------------------------------------------------ tolerance

  @Test
  void decode_takesKeysInAnyOrderSkipsUnknownOnesAndDefaultsWhatMayBeAbsent() {
    byte[] bytes =
        pack(
            List.of(
                map(
                    "session_id",
                    "s-1",
                    "event",
                    map(
                        "data",
                        map(
                            "stored",
                            map(
                                "blocks",
                                List.of(
                                    map(
                                        "mm_extra_info",
                                        map(
                                            "mm_objects",
                                            List.of(
                                                map(
                                                    "mm_hash",
                                                    5,
                                                    "offsets",
                                                    List.of(List.of(0, 3))))),
                                        "tokens_hash",
                                        new U64(MAX_U64),
                                        "future",
                                        true,
                                        "block_hash",
                                        2)),
                                "start_position",
                                16)),
                        "event_id",
                        4,
                        "extra",
                        1.5),
                    7,
                    "a non-string key",
                    "state_source",
                    map("pool", List.of(1, 2)),
                    "worker_id",
                    9),
                map(
                    "storage_tier", map("host_pinned", null),
                    "worker_id", 9,
                    "event", map("event_id", 5, "data", map("cleared", null), "dp_rank", null))));

    List<TieredEvent> events = DynamoMsgpackCodec.decodeTieredPayload(bytes);

    assertThat(events)
        .containsExactly(
            new TieredEvent(
                event("9", 0, 4, KvCacheEvent.stored(null, new StoredBlock(2, MAX_U64))),
                "device",
                null),
            new TieredEvent(event("9", 0, 5, KvCacheEvent.cleared()), "host_pinned", null));
  }

  static Stream<Arguments> placements() {
    Object stored =
        map(
            "stored",
            map(
                "parent_hash",
                1,
                "blocks",
                List.of(map("block_hash", 2, "tokens_hash", 3, "mm_extra_info", null))));
    Object removed = map("removed", map("block_hashes", List.of(2)));
    Object cleared = "cleared";
    return Stream.of(
        Arguments.of(stored, "device", null, true),
        Arguments.of(stored, "device", "worker", true),
        Arguments.of(removed, "device", "worker", true),
        Arguments.of(stored, "host_pinned", "worker", false),
        Arguments.of(removed, "disk", null, false),
        Arguments.of(stored, "external", "cache_owner", false),
        Arguments.of(stored, "device", "cache_owner", false),
        Arguments.of(cleared, "host_pinned", null, true),
        Arguments.of(cleared, "device", "worker", true),
        Arguments.of(cleared, "device", "cache_owner", false));
  }

  @ParameterizedTest(name = "{0} on {1} in domain {2}: device index {3}")
  @MethodSource("placements")
  void targetsDeviceIndex_followsDynamosPrimaryIndexRule(
      Object data, String tier, String domain, boolean expected) {
    Map<Object, Object> routerEvent = map("worker_id", 1, "storage_tier", tier);
    if (domain != null) {
      routerEvent.put("residency_domain", domain);
    }
    routerEvent.put("event", map("event_id", 1, "data", data));

    TieredEvent decoded = DynamoMsgpackCodec.decodeTieredPayload(pack(routerEvent)).get(0);

    assertThat(decoded.storageTier()).isEqualTo(tier);
    assertThat(decoded.residencyDomain()).isEqualTo(domain);
    assertThat(decoded.targetsDeviceIndex()).isEqualTo(expected);
  }

  // ------------------------------------------------------------------ malformed

  private static Map<Object, Object> routerEvent(Object... eventFields) {
    return map("worker_id", 7, "storage_tier", "device", "event", map(eventFields));
  }

  static Stream<Arguments> malformed() {
    byte[] golden = payloadOf("s1_frame.hex");
    return Stream.of(
        Arguments.of(
            "no worker_id",
            pack(map("event", map("event_id", 1, "data", "cleared"))),
            "worker_id: required field is missing"),
        Arguments.of("no event", pack(map("worker_id", 7)), "event: required field is missing"),
        Arguments.of(
            "no event_id",
            pack(routerEvent("data", "cleared")),
            "event.event_id: required field is missing"),
        Arguments.of(
            "no data", pack(routerEvent("event_id", 1)), "event.data: required field is missing"),
        Arguments.of(
            "event_id a string",
            pack(routerEvent("event_id", "1", "data", "cleared")),
            "event.event_id: expected an unsigned 64-bit integer, got string"),
        Arguments.of(
            "negative worker_id",
            pack(map("worker_id", -1, "event", map("event_id", 1, "data", "cleared"))),
            "worker_id: -1 is negative"),
        Arguments.of(
            "float tokens_hash",
            pack(
                routerEvent(
                    "event_id",
                    1,
                    "data",
                    map(
                        "stored",
                        map(
                            "parent_hash",
                            null,
                            "blocks",
                            List.of(map("block_hash", 1, "tokens_hash", 2.0)))))),
            "event.data.stored.blocks[0].tokens_hash: expected an unsigned 64-bit integer, got"
                + " float"),
        Arguments.of(
            "block without tokens_hash",
            pack(
                routerEvent(
                    "event_id",
                    1,
                    "data",
                    map("stored", map("blocks", List.of(map("block_hash", 1)))))),
            "event.data.stored.blocks[0].tokens_hash: required field is missing"),
        Arguments.of(
            "stored without blocks",
            pack(routerEvent("event_id", 1, "data", map("stored", map("parent_hash", 1)))),
            "event.data.stored.blocks: required field is missing"),
        Arguments.of(
            "removed without block_hashes",
            pack(routerEvent("event_id", 1, "data", map("removed", map()))),
            "event.data.removed.block_hashes: required field is missing"),
        Arguments.of(
            "unknown variant",
            pack(routerEvent("event_id", 1, "data", map("accessed", map()))),
            "event.data: unknown variant \"accessed\""),
        Arguments.of(
            "stored as a unit variant",
            pack(routerEvent("event_id", 1, "data", "stored")),
            "event.data: \"stored\" is not a unit variant"),
        Arguments.of(
            "two variants",
            pack(routerEvent("event_id", 1, "data", map("cleared", null, "removed", map()))),
            "event.data: expected exactly one variant key"),
        Arguments.of(
            "cleared with a value",
            pack(routerEvent("event_id", 1, "data", map("cleared", 1))),
            "event.data.cleared: expected nil, got integer"),
        Arguments.of(
            "dp_rank beyond int",
            pack(routerEvent("event_id", 1, "data", "cleared", "dp_rank", 1L << 31)),
            "event.dp_rank: 2147483648 is outside 0..2147483647"),
        Arguments.of(
            "start_position beyond u32",
            pack(
                routerEvent(
                    "event_id",
                    1,
                    "data",
                    map("stored", map("start_position", 1L << 32, "blocks", List.of())))),
            "event.data.stored.start_position: out of the u32 range"),
        Arguments.of(
            "unknown tier",
            pack(
                map(
                    "worker_id",
                    7,
                    "storage_tier",
                    "gpu",
                    "event",
                    map("event_id", 1, "data", "cleared"))),
            "storage_tier: unknown storage tier \"gpu\""),
        Arguments.of(
            "nil residency_domain",
            pack(
                List.of(
                    map(
                        "worker_id",
                        7,
                        "residency_domain",
                        null,
                        "event",
                        map("event_id", 1, "data", "cleared")))),
            "[0].residency_domain: nil is invalid"),
        Arguments.of(
            "unknown residency_domain",
            pack(
                map(
                    "worker_id",
                    7,
                    "residency_domain",
                    "tenant",
                    "event",
                    map("event_id", 1, "data", "cleared"))),
            "residency_domain: unsupported residency domain \"tenant\""),
        Arguments.of(
            "residency_domain not a string",
            pack(
                map(
                    "worker_id",
                    7,
                    "residency_domain",
                    1,
                    "event",
                    map("event_id", 1, "data", "cleared"))),
            "residency_domain: expected \"worker\" or \"cache_owner\", got integer"),
        Arguments.of(
            "duplicate worker_id",
            concat(
                new byte[] {(byte) 0x92},
                pack(map("worker_id", 7, "event", map("event_id", 1, "data", "cleared"))),
                new byte[] {(byte) 0x82},
                pack("worker_id"),
                pack(7),
                pack("worker_id"),
                pack(8)),
            "[1].worker_id: duplicate field"),
        Arguments.of(
            "an unknown key twice is fine, but not a known one",
            concat(
                new byte[] {(byte) 0x84},
                pack("x"),
                pack(1),
                pack("x"),
                pack(2),
                pack("worker_id"),
                pack(7),
                pack("event"),
                new byte[] {(byte) 0x83},
                pack("event_id"),
                pack(1),
                pack("data"),
                pack("cleared"),
                pack("data"),
                pack("cleared")),
            "event.data: duplicate field"),
        Arguments.of(
            "second event bad",
            pack(List.of(routerEvent("event_id", 1, "data", "cleared"), map("worker_id", "7"))),
            "[1].worker_id: expected an unsigned 64-bit integer, got string"),
        Arguments.of(
            "a string payload",
            pack("cleared"),
            "$: expected a RouterEvent map or an array of them, got string"),
        Arguments.of("truncated", Arrays.copyOf(golden, golden.length - 1), "truncated input"),
        Arguments.of(
            "trailing byte",
            Arrays.copyOf(golden, golden.length + 1),
            "$: 1 trailing bytes after the value"),
        Arguments.of("byte 0xc1", new byte[] {(byte) 0xc1}, "$: invalid msgpack byte 0xc1"),
        Arguments.of("empty", new byte[0], "$: truncated input"),
        Arguments.of(
            "huge array header",
            HexFormat.of().parseHex("dd7fffffff80"),
            "$: an array of 2147483647 elements cannot fit in the 1 bytes left"),
        Arguments.of(
            "huge map header",
            HexFormat.of().parseHex("df0fffffff"),
            "$: a map of 268435455 entries cannot fit in the 0 bytes left"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformedPayload_failsNamingTheField(String what, byte[] payload, String message) {
    assertThatThrownBy(() -> DynamoMsgpackCodec.decodePayload(payload))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageContaining(message);
  }

  // ------------------------------------------------------------------ load

  @Test
  void activeLoadGolden_decodesWithUnknownSchedulerCounts() {
    WorkerLoadReport report = DynamoMsgpackCodec.decodeLoad(E3Golden.load("active_load.hex"));

    assertThat(report)
        .isEqualTo(
            new WorkerLoadReport(
                WorkerRank.of("7"),
                WorkerLoadReport.UNKNOWN,
                WorkerLoadReport.UNKNOWN,
                42,
                WorkerLoadReport.UNKNOWN,
                WorkerLoadReport.UNKNOWN,
                WorkerLoadReport.UNKNOWN));
  }

  @Test
  void encodeLoad_writesDynamosFieldsThenOurs_nilForUnknown() {
    WorkerLoadReport report =
        new WorkerLoadReport(
            new WorkerRank("18446744073709551615", 2),
            12,
            WorkerLoadReport.UNKNOWN,
            300,
            1024,
            3,
            5);

    byte[] bytes = DynamoMsgpackCodec.encodeLoad(report);

    assertThat(bytes)
        .isEqualTo(
            pack(
                map(
                    "worker_id", new U64(MAX_U64),
                    "dp_rank", 2,
                    "active_decode_blocks", 12,
                    "active_prefill_tokens", null,
                    "kv_used_blocks", 300,
                    "kv_total_blocks", 1024,
                    "num_requests_waiting", 3,
                    "num_requests_running", 5)));
    assertThat(DynamoMsgpackCodec.decodeLoad(bytes)).isEqualTo(report);
  }

  @Test
  void decodeLoad_readsNumWaitingReqsFirst_andDefaultsTheRank() {
    byte[] dynamo =
        pack(
            map(
                "kv_used_blocks",
                4,
                "worker_id",
                3,
                "num_waiting_reqs",
                6,
                "num_requests_waiting",
                9,
                "later_field",
                List.of(1)));
    byte[] ours = pack(map("worker_id", 3, "num_requests_waiting", 9, "num_waiting_reqs", null));

    assertThat(DynamoMsgpackCodec.decodeLoad(dynamo).requestsWaiting()).isEqualTo(6);
    assertThat(DynamoMsgpackCodec.decodeLoad(dynamo).rank()).isEqualTo(WorkerRank.of("3"));
    assertThat(DynamoMsgpackCodec.decodeLoad(ours).requestsWaiting()).isEqualTo(9);
    assertThat(DynamoMsgpackCodec.decodeLoad(ours).activeDecodeBlocks())
        .isEqualTo(WorkerLoadReport.UNKNOWN);
  }

  @Test
  void decodeLoad_malformed() {
    assertThatThrownBy(() -> DynamoMsgpackCodec.decodeLoad(pack(map("dp_rank", 1))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("worker_id: required field is missing");
    assertThatThrownBy(
            () ->
                DynamoMsgpackCodec.decodeLoad(
                    pack(map("worker_id", 1, "kv_used_blocks", new U64(TWO_63)))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("kv_used_blocks: 9223372036854775808 is too large");
    assertThatThrownBy(
            () -> DynamoMsgpackCodec.decodeLoad(pack(map("worker_id", 1, "dp_rank", "0"))))
        .isInstanceOf(DynamoEventFormatException.class)
        .hasMessageStartingWith("dp_rank: expected an unsigned 64-bit integer, got string");
  }

  @Test
  void encode_rejectsAWorkerIdThatIsNotAU64() {
    DynamoRouterEvent named = event("worker-a", 0, 1, KvCacheEvent.cleared());

    assertThatThrownBy(() -> DynamoMsgpackCodec.encode(named))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("worker-a");
  }
}
