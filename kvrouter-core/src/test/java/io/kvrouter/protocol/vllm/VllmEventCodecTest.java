package io.kvrouter.protocol.vllm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kvrouter.protocol.vllm.VllmEvent.AllBlocksCleared;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.protocol.vllm.VllmEventCodec.Encoding;
import io.kvrouter.testing.HexFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * {@link VllmEventCodec} against the golden payloads written by Python msgpack ({@code
 * scripts/golden/vllm_events.py}, {@code src/test/resources/golden/vllm}), seeded random round
 * trips in both generations, and every malformed input we could think of: each must fail as a
 * {@link VllmEventFormatException} that says where, never as anything else.
 */
class VllmEventCodecTest {

  /** The ints at the edges of msgpack's int forms (fixints, 8, 16 and 32 bits, both signs). */
  private static final int[] INT_FORM_EDGES = {
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    Integer.MAX_VALUE,
    -1,
    -32,
    -33,
    -128,
    -129,
    -32768,
    -32769,
    Integer.MIN_VALUE
  };

  /**
   * Token ids at every int form's edges are written exactly as msgpack-core's packInt writes them.
   */
  @ParameterizedTest
  @EnumSource(Encoding.class)
  void tokenIds_takeTheSmallestIntForm_asPackIntWritesIt(Encoding encoding) throws IOException {
    int[] tokens = INT_FORM_EDGES;
    BlockStored stored = BlockStored.of(List.of(7L), null, tokens, tokens.length);
    byte[] payload =
        VllmEventCodec.encode(new VllmEventBatch(1.0, List.of(stored), null), encoding);
    byte[] expected;
    try (MessageBufferPacker reference = MessagePack.newDefaultBufferPacker()) {
      reference.packArrayHeader(tokens.length);
      for (int t : tokens) {
        reference.packInt(t);
      }
      expected = reference.toByteArray();
    }

    assertThat(HexFormat.of().formatHex(payload)).contains(HexFormat.of().formatHex(expected));
    BlockStored decoded = (BlockStored) VllmEventCodec.decode(payload).events().get(0);
    assertThat(decoded.tokenIds()).containsExactly(tokens);
  }

  // The values the fixture script uses (kept in step with scripts/golden/vllm_events.py).
  private static final long H_OBSERVED = Long.parseUnsignedLong("15760518052499183552");
  private static final long H_BIG = 0xF0E1D2C3B4A59687L;
  private static final long H_SMALL = 0x0123456789ABCDEFL;
  private static final long H_PARENT = 0xDEADBEEFL;
  private static final long H_TINY = 42;

  private static final long MAX_U64 = -1L; // 2^64 - 1
  private static final long TWO_63 = Long.MIN_VALUE; // 2^63

  // ---------------------------------------------------------------- goldens

  static Stream<Arguments> goldens() {
    return Stream.of(
        Arguments.of(
            "map_v0_26_observed.msgpack",
            new VllmEventBatch(
                1767225600.25,
                List.of(
                    new BlockStored(
                        List.of(H_OBSERVED),
                        null,
                        tokens(100, 16),
                        16,
                        null,
                        "GPU",
                        null,
                        0,
                        "full_attention",
                        Collections.singletonList(null))),
                0)),
        Arguments.of("map_current.msgpack", mapCurrent()),
        Arguments.of("array_legacy.msgpack", arrayLegacy()),
        Arguments.of(
            "array_legacy_2elem.msgpack",
            new VllmEventBatch(
                1767225603.0,
                List.of(
                    new BlockStored(
                        List.of(H_TINY, H_BIG),
                        null,
                        tokens(5, 8),
                        4,
                        null,
                        null,
                        null,
                        null,
                        null),
                    new BlockRemoved(List.of(H_TINY), null, null),
                    new AllBlocksCleared()),
                null)),
        Arguments.of(
            "map_batch.msgpack",
            new VllmEventBatch(
                1767225604.125,
                List.of(
                    new BlockStored(
                        List.of(H_OBSERVED),
                        H_BIG,
                        tokens(7, 16),
                        16,
                        null,
                        "GPU",
                        null,
                        null,
                        "full_attention"),
                    new BlockRemoved(List.of(H_OBSERVED), "GPU", null)),
                2)),
        Arguments.of(
            "bin_hashes.msgpack",
            new VllmEventBatch(
                1767225605,
                List.of(
                    new BlockStored(
                        List.of(lastEight(digestA()), lastEight(digestB())),
                        lastEight(digestP()),
                        tokens(300, 32),
                        16,
                        null,
                        "GPU",
                        null,
                        null,
                        null),
                    new BlockRemoved(List.of(lastEight(digestB())), "GPU", null)),
                null)),
        Arguments.of(
            "array_extra_elements.msgpack",
            new VllmEventBatch(
                1767225606.5,
                List.of(
                    new BlockStored(
                        List.of(H_BIG),
                        null,
                        tokens(40, 4),
                        4,
                        null,
                        "GPU",
                        null,
                        0,
                        "full_attention",
                        List.of(List.of("mm-hash", 0L))),
                    new BlockRemoved(List.of(H_BIG), "GPU", 0),
                    new AllBlocksCleared()),
                5)),
        Arguments.of(
            "map_unknown_keys.msgpack",
            new VllmEventBatch(
                1767225607.0,
                List.of(
                    new BlockStored(
                        List.of(H_SMALL),
                        null,
                        tokens(60, 2),
                        2,
                        null,
                        "GPU",
                        null,
                        null,
                        null,
                        List.of(List.of("salt", "x"))),
                    new BlockRemoved(List.of(H_SMALL), "GPU", null),
                    new AllBlocksCleared()),
                null)),
        Arguments.of("array_lora_hybrid.msgpack", loraHybrid()),
        Arguments.of("map_lora_hybrid.msgpack", loraHybrid()),
        Arguments.of("map_cache_salt.msgpack", cacheSalt()),
        Arguments.of("map_top_level_cache_salt.msgpack", topLevelCacheSalt()));
  }

  /** Stores naming their namespace in a top-level {@code cache_salt}, as Dynamo's decoder reads. */
  static VllmEventBatch topLevelCacheSalt() {
    return new VllmEventBatch(
        1767225611.0,
        List.of(
            new BlockStored(
                List.of(H_SMALL, H_BIG),
                null,
                tokens(0, 32),
                16,
                null,
                "GPU",
                null,
                null,
                null,
                Arrays.asList(List.of("tenant-a"), null),
                "tenant-a"),
            new BlockStored(
                List.of(H_TINY),
                null,
                tokens(100, 16),
                16,
                null,
                "GPU",
                null,
                null,
                null,
                null,
                "tenant-b")),
        0);
  }

  @Test
  void golden_topLevelCacheSalt_isReadAndWrittenBackByteForByte() {
    byte[] golden = golden("map_top_level_cache_salt.msgpack");
    assertThat(VllmEventCodec.decode(golden)).isEqualTo(topLevelCacheSalt());
    assertThat(hex(VllmEventCodec.encode(topLevelCacheSalt(), Encoding.MAP)))
        .isEqualTo(hex(golden));
  }

  /** vLLM's sha256_cbor hashes of tokens 0..47 (block 16) salted "dynamo-cache-salt:tenant-a". */
  static final long[] SALTED = {
    BlockHasherVectors.u64("10886210798873897012"),
    BlockHasherVectors.u64("12234057048873729429"),
    BlockHasherVectors.u64("12401735944253060766")
  };

  /** A salted store (the salt in its first block's extra keys), then its continuation. */
  static VllmEventBatch cacheSalt() {
    return new VllmEventBatch(
        1767225610.0,
        List.of(
            new BlockStored(
                List.of(SALTED[0], SALTED[1]),
                null,
                tokens(0, 32),
                16,
                null,
                "GPU",
                null,
                null,
                null,
                Arrays.asList(List.of("dynamo-cache-salt:tenant-a"), null)),
            BlockStored.of(List.of(SALTED[2]), SALTED[1], tokens(32, 16), 16)),
        0);
  }

  @Test
  void golden_cacheSalt_isByteForBytePythonMsgpack() {
    assertThat(hex(VllmEventCodec.encode(cacheSalt(), Encoding.MAP)))
        .isEqualTo(hex(golden("map_cache_salt.msgpack")));
  }

  private static VllmEventBatch loraHybrid() {
    List<List<Object>> loraKeys = List.of(List.of("adapter-a"), List.of("adapter-a"));
    byte[] embeds = new byte[32];
    for (int i = 0; i < embeds.length; i++) {
      embeds[i] = (byte) (0x40 + i);
    }
    List<List<Object>> extraKeys =
        Arrays.asList(
            List.of("tenant-salt"),
            null,
            List.of(List.of("0123456789abcdef".repeat(4), 5L), ByteBuffer.wrap(embeds)),
            Arrays.asList(true, -3L, 2.5, new BigInteger("18446744073709551615"), null));
    return new VllmEventBatch(
        1767225608.5,
        List.of(
            new BlockStored(
                List.of(H_BIG, H_SMALL),
                null,
                tokens(500, 32),
                16,
                1,
                "GPU",
                "adapter-a",
                0,
                "sliding_window",
                loraKeys),
            new BlockStored(
                List.of(H_BIG, H_SMALL),
                null,
                tokens(500, 32),
                16,
                1,
                "GPU",
                "adapter-a",
                1,
                "full_attention",
                loraKeys),
            new BlockStored(
                List.of(H_TINY, H_PARENT, H_OBSERVED, H_SMALL),
                null,
                tokens(0, 64),
                16,
                null,
                "GPU",
                null,
                null,
                null,
                extraKeys),
            new BlockRemoved(List.of(H_BIG), "GPU", 1)),
        0);
  }

  private static VllmEventBatch mapCurrent() {
    return new VllmEventBatch(
        1767225601.5,
        List.of(
            new BlockStored(
                List.of(H_BIG, H_SMALL),
                H_PARENT,
                tokens(151600, 32),
                16,
                null,
                "GPU",
                null,
                1,
                "sliding_window"),
            new BlockStored(
                List.of(H_TINY),
                null,
                new int[] {0, 1, 127, 128, 255, 256, 65535, 65536},
                8,
                7,
                "CPU",
                "adapter-a",
                null,
                null),
            new BlockRemoved(List.of(H_BIG, H_PARENT), "GPU", null),
            new BlockRemoved(List.of(H_SMALL), null, 2),
            new AllBlocksCleared()),
        3);
  }

  private static VllmEventBatch arrayLegacy() {
    return new VllmEventBatch(
        1767225602.75,
        List.of(
            new BlockStored(
                List.of(H_SMALL, H_BIG),
                H_PARENT,
                tokens(1000, 32),
                16,
                null,
                "GPU",
                null,
                null,
                null),
            BlockRemoved.of(List.of(H_SMALL)),
            new AllBlocksCleared()),
        1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void golden_decodesToTheExpectedRecords(String fixture, VllmEventBatch expected) {
    VllmEventBatch decoded = VllmEventCodec.decode(golden(fixture));

    assertThat(decoded).isEqualTo(expected);
    // equals covers every field; say which event differs when it does not
    for (int i = 0; i < expected.events().size(); i++) {
      assertThat(decoded.events().get(i)).as("event %d", i).isEqualTo(expected.events().get(i));
    }
  }

  @Test
  void golden_v026Sample_holdsTheObservedValues() {
    VllmEventBatch batch = VllmEventCodec.decode(golden("map_v0_26_observed.msgpack"));

    BlockStored stored = (BlockStored) batch.events().get(0);
    assertThat(Long.toUnsignedString(stored.blockHashes().get(0)))
        .isEqualTo("15760518052499183552");
    assertThat(stored.parentBlockHash()).isNull();
    assertThat(stored.tokenIds()).hasSize(16);
    assertThat(stored.blockSize()).isEqualTo(16);
    assertThat(stored.medium()).isEqualTo("GPU");
    assertThat(stored.groupIdx()).isZero();
    assertThat(stored.kvCacheSpecKind()).isEqualTo("full_attention");
    assertThat(batch.dataParallelRank()).isZero();
  }

  @Test
  void golden_mapEncoding_isByteForBytePythonMsgpack() {
    assertThat(hex(VllmEventCodec.encode(mapCurrent(), Encoding.MAP)))
        .isEqualTo(hex(golden("map_current.msgpack")));
  }

  @Test
  void golden_arrayEncoding_isByteForBytePythonMsgpack() {
    assertThat(hex(VllmEventCodec.encode(arrayLegacy(), Encoding.ARRAY)))
        .isEqualTo(hex(golden("array_legacy.msgpack")));
  }

  @Test
  void golden_v026Sample_reencodedAsMap_isByteForByteWhatItSent() {
    byte[] observed = golden("map_v0_26_observed.msgpack");

    assertThat(hex(VllmEventCodec.encode(VllmEventCodec.decode(observed), Encoding.MAP)))
        .isEqualTo(hex(observed));
  }

  @ParameterizedTest
  @EnumSource(Encoding.class)
  void golden_loraHybridAndExtraKeys_isByteForBytePythonMsgpack(Encoding encoding) {
    String fixture = encoding == Encoding.ARRAY ? "array" : "map";

    assertThat(hex(VllmEventCodec.encode(loraHybrid(), encoding)))
        .isEqualTo(hex(golden(fixture + "_lora_hybrid.msgpack")));
  }

  @Test
  void extraKeys_areKeptAsGiven_unmodifiable_andBinIsACopy() {
    byte[] payload = golden("map_lora_hybrid.msgpack");
    BlockStored stored = (BlockStored) VllmEventCodec.decode(payload).events().get(2);
    ByteBuffer embeds = (ByteBuffer) ((List<?>) stored.extraKeys().get(2)).get(1);
    Arrays.fill(payload, (byte) 0);

    assertThat(embeds.isReadOnly()).isTrue();
    assertThat(embeds.get(0)).isEqualTo((byte) 0x40);
    assertThatThrownBy(() -> stored.extraKeys().get(0).add("x"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void golden_truncatedAtEveryOffset_failsAsFormatError(String fixture, VllmEventBatch ignored) {
    byte[] payload = golden(fixture);
    for (int len = 0; len < payload.length; len++) {
      byte[] prefix = Arrays.copyOf(payload, len);
      Throwable thrown = catchThrowable(() -> VllmEventCodec.decode(prefix));
      assertThat(thrown)
          .as("prefix of %d bytes", len)
          .isExactlyInstanceOf(VllmEventFormatException.class);
      assertThat(thrown.getMessage()).as("prefix of %d bytes", len).isNotBlank();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("goldens")
  void golden_randomlyCorrupted_decodesOrFailsAsFormatError(
      String fixture, VllmEventBatch ignored) {
    byte[] payload = golden(fixture);
    Random random = new Random(fixture.hashCode());
    int failed = 0;
    for (int round = 0; round < 3000; round++) {
      byte[] mutated = mutate(payload, random);
      Throwable thrown = catchThrowable(() -> VllmEventCodec.decode(mutated));
      if (thrown != null) {
        failed++;
        assertThat(thrown)
            .as("mutation %d: %s", round, hex(mutated))
            .isExactlyInstanceOf(VllmEventFormatException.class);
      }
    }
    assertThat(failed).as("mutations rejected").isBetween(1, 2999);
  }

  @Test
  void randomBytes_decodeOrFailAsFormatError() {
    Random random = new Random(99);
    byte[] starts = hexBytes("9293dddf80c0cbca");
    for (int round = 0; round < 20_000; round++) {
      byte[] bytes = new byte[random.nextInt(40)];
      random.nextBytes(bytes);
      if (bytes.length > 0 && random.nextBoolean()) {
        bytes[0] = starts[random.nextInt(starts.length)]; // mostly containers, to get further in
      }
      Throwable thrown = catchThrowable(() -> VllmEventCodec.decode(bytes));
      if (thrown != null) {
        assertThat(thrown).as(hex(bytes)).isExactlyInstanceOf(VllmEventFormatException.class);
      }
    }
  }

  @Test
  void trailingBytesAfterAValidBatch_areRejected() {
    byte[] payload = golden("array_legacy.msgpack");
    byte[] longer = Arrays.copyOf(payload, payload.length + 1);

    assertThatThrownBy(() -> VllmEventCodec.decode(longer))
        .isExactlyInstanceOf(VllmEventFormatException.class)
        .hasMessageContaining("1 trailing bytes after the batch");
  }

  // ---------------------------------------------------------------- round trips

  @ParameterizedTest
  @EnumSource(Encoding.class)
  void randomBatches_roundTrip(Encoding encoding) {
    Random random = new Random(20260611L + encoding.ordinal());
    for (int i = 0; i < 3000; i++) {
      VllmEventBatch batch = randomBatch(random);
      byte[] bytes = VllmEventCodec.encode(batch, encoding);

      VllmEventBatch decoded = VllmEventCodec.decode(bytes);
      assertThat(decoded).as("batch %d: %s", i, batch).isEqualTo(batch);
      assertThat(VllmEventCodec.encode(decoded, encoding)).isEqualTo(bytes);
    }
  }

  @Test
  void randomBatches_bothEncodingsDecodeToTheSameBatch_andDiffer() {
    Random random = new Random(7);
    for (int i = 0; i < 500; i++) {
      VllmEventBatch batch = randomBatch(random);
      byte[] array = VllmEventCodec.encode(batch, Encoding.ARRAY);
      byte[] map = VllmEventCodec.encode(batch, Encoding.MAP);

      assertThat(VllmEventCodec.decode(array)).isEqualTo(VllmEventCodec.decode(map));
      if (!batch.events().isEmpty()) {
        assertThat(array).isNotEqualTo(map);
      }
    }
  }

  @Test
  void randomBatches_truncatedAnywhere_failAsFormatError() {
    Random random = new Random(11);
    for (int i = 0; i < 200; i++) {
      byte[] bytes = VllmEventCodec.encode(randomBatch(random), Encoding.values()[i % 2]);
      int len = random.nextInt(bytes.length);
      assertThatThrownBy(() -> VllmEventCodec.decode(Arrays.copyOf(bytes, len)))
          .isExactlyInstanceOf(VllmEventFormatException.class);
    }
  }

  @Test
  void mapEncoding_omitsNoneDefaultedFields_keepsTheOthersAsNil() {
    VllmEventBatch batch =
        new VllmEventBatch(
            1.5,
            List.of(
                BlockStored.of(List.of(1L), null, new int[] {9}, 1),
                new BlockRemoved(List.of(2L), null, null),
                new AllBlocksCleared()),
            null);

    Map<String, Object> stored = new LinkedHashMap<>();
    stored.put("type", "BlockStored");
    stored.put("block_hashes", List.of(1L));
    stored.put("parent_block_hash", null);
    stored.put("token_ids", List.of(9));
    stored.put("block_size", 1);
    stored.put("lora_id", null);
    stored.put("medium", "GPU");
    stored.put("lora_name", null);
    Map<String, Object> removed = new LinkedHashMap<>();
    removed.put("type", "BlockRemoved");
    removed.put("block_hashes", List.of(2L));
    removed.put("medium", null);
    byte[] expected =
        pack(
            Arrays.asList(1.5, List.of(stored, removed, Map.of("type", "AllBlocksCleared")), null));

    assertThat(hex(VllmEventCodec.encode(batch, Encoding.MAP))).isEqualTo(hex(expected));
  }

  @Test
  void arrayEncoding_writesEveryFieldPositionally() {
    VllmEventBatch batch =
        new VllmEventBatch(
            2.0,
            List.of(
                new BlockStored(List.of(3L), 4L, new int[] {5, 6}, 2, 1, "CPU", "l", 0, "k"),
                new BlockRemoved(List.of(3L), "CPU", 0)),
            7);
    byte[] expected =
        pack(
            List.of(
                2.0,
                List.of(
                    Arrays.asList(
                        "BlockStored",
                        List.of(3L),
                        4L,
                        List.of(5, 6),
                        2,
                        1,
                        "CPU",
                        "l",
                        null,
                        0,
                        "k"),
                    List.of("BlockRemoved", List.of(3L), "CPU", 0)),
                7));

    assertThat(hex(VllmEventCodec.encode(batch, Encoding.ARRAY))).isEqualTo(hex(expected));
  }

  // ---------------------------------------------------------------- hashes

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0",
        "1",
        "127",
        "128",
        "255",
        "256",
        "65535",
        "65536",
        "4294967295",
        "4294967296",
        "9223372036854775807",
        "9223372036854775808",
        "15760518052499183552",
        "18446744073709551615"
      })
  void unsignedHash_roundTripsBitForBit(String unsigned) {
    long hash = Long.parseUnsignedLong(unsigned);
    VllmEventBatch batch =
        new VllmEventBatch(0.0, List.of(BlockStored.of(List.of(hash), hash, new int[0], 16)), 0);

    for (Encoding encoding : Encoding.values()) {
      byte[] bytes = VllmEventCodec.encode(batch, encoding);
      BlockStored decoded = (BlockStored) VllmEventCodec.decode(bytes).events().get(0);
      assertThat(Long.toUnsignedString(decoded.blockHashes().get(0))).isEqualTo(unsigned);
      assertThat(Long.toUnsignedString(decoded.parentBlockHash())).isEqualTo(unsigned);
      // written as the unsigned int Python msgpack writes: the same bytes as BigInteger packing
      assertThat(hex(bytes)).contains(hex(pack(new BigInteger(unsigned))));
    }
  }

  @Test
  void uint64EdgeValues_onTheWire() {
    assertThat(hex(hashBytes(0L))).isEqualTo("00");
    assertThat(hex(hashBytes(Long.MAX_VALUE))).isEqualTo("cf7fffffffffffffff");
    assertThat(hex(hashBytes(TWO_63))).isEqualTo("cf8000000000000000");
    assertThat(hex(hashBytes(MAX_U64))).isEqualTo("cfffffffffffffffff");
  }

  @Test
  void uint64EdgeValues_decodeFromEveryEncodingOfTheSameValue() {
    // uint64 written non-minimally for small values, and signed forms (Python hash() can be < 0)
    assertThat(decodeHash("cf0000000000000000")).isZero();
    assertThat(decodeHash("cf7fffffffffffffff")).isEqualTo(Long.MAX_VALUE);
    assertThat(decodeHash("cf8000000000000000")).isEqualTo(TWO_63);
    assertThat(decodeHash("cfffffffffffffffff")).isEqualTo(MAX_U64);
    assertThat(decodeHash("d3ffffffffffffffff")).isEqualTo(-1L); // int64 -1: same bits as 2^64-1
    assertThat(decodeHash("d38000000000000000")).isEqualTo(Long.MIN_VALUE);
    assertThat(decodeHash("ff")).isEqualTo(-1L); // negative fixint
    assertThat(decodeHash("d080")).isEqualTo(-128L);
    assertThat(decodeHash("d1ff7f")).isEqualTo(-129L);
    assertThat(decodeHash("d2ffff7fff")).isEqualTo(-32769L);
    assertThat(decodeHash("7f")).isEqualTo(127L);
    assertThat(decodeHash("ccff")).isEqualTo(255L);
    assertThat(decodeHash("cdffff")).isEqualTo(65535L);
    assertThat(decodeHash("ceffffffff")).isEqualTo(4294967295L);
  }

  @Test
  void binHashes_foldToTheLastEightBytesBigEndian() {
    byte[] digest = new byte[32];
    for (int i = 0; i < 32; i++) {
      digest[i] = (byte) (0xC0 + i);
    }
    assertThat(decodeHash(hex(pack(digest)))).isEqualTo(0xD8D9DADBDCDDDEDFL);
    assertThat(decodeHash("c408" + "0102030405060708")).isEqualTo(0x0102030405060708L);
    assertThat(decodeHash("c409" + "ff0102030405060708")).isEqualTo(0x0102030405060708L);
    assertThat(decodeHash("c408" + "ffffffffffffffff")).isEqualTo(MAX_U64);
    assertThat(decodeHash("c404" + "deadbeef")).isEqualTo(0xDEADBEEFL);
    assertThat(decodeHash("c401" + "ff")).isEqualTo(0xFFL);
    assertThat(decodeHash("c400")).isZero();
    assertThat(decodeHash("c50020" + hex(digest))).isEqualTo(0xD8D9DADBDCDDDEDFL); // bin16
  }

  @Test
  void strHashes_areRejected() {
    assertThatThrownBy(() -> VllmEventCodec.decode(batchWithHashes(pack("abc"))))
        .isExactlyInstanceOf(VllmEventFormatException.class)
        .hasMessageContaining(
            "event 0: block_hashes[0]: expected an integer or bin block hash," + " got STRING");
  }

  // ---------------------------------------------------------------- tolerance

  @Test
  void timestamp_asFloat32_float64_intAndUint64() {
    assertThat(VllmEventCodec.decode(hexBytes("92ca3fc0000090")).timestamp()).isEqualTo(1.5);
    assertThat(VllmEventCodec.decode(hexBytes("92cb3ff800000000000090")).timestamp())
        .isEqualTo(1.5);
    assertThat(VllmEventCodec.decode(hexBytes("920790")).timestamp()).isEqualTo(7.0);
    assertThat(VllmEventCodec.decode(hexBytes("92ff90")).timestamp()).isEqualTo(-1.0);
    assertThat(VllmEventCodec.decode(hexBytes("92cfffffffffffffffff90")).timestamp())
        .isEqualTo(18446744073709551615.0);
  }

  @Test
  void batch_legacyTwoElements_extraElements_andMapForm() {
    assertThat(VllmEventCodec.decode(pack(List.of(1.0, List.of()))))
        .isEqualTo(new VllmEventBatch(1.0, List.of(), null));
    assertThat(VllmEventCodec.decode(pack(List.of(1.0, List.of(), 4, "x", List.of(1, 2)))))
        .isEqualTo(new VllmEventBatch(1.0, List.of(), 4));

    Map<Object, Object> map = new LinkedHashMap<>();
    map.put("events", List.of(List.of("AllBlocksCleared")));
    map.put(7, "non-string key");
    map.put("ts", 3);
    assertThat(VllmEventCodec.decode(pack(map)))
        .isEqualTo(new VllmEventBatch(3.0, List.of(new AllBlocksCleared()), null));
  }

  @Test
  void mapEvent_typeAnywhere_unknownKeysAndNonStringKeysSkipped() {
    Map<String, Object> removed = new LinkedHashMap<>();
    removed.put("group_idx", 4);
    removed.put("parent_block_hash", "not a BlockRemoved field: ignored");
    removed.put("medium", "CPU");
    removed.put("type", "BlockRemoved");
    removed.put("block_hashes", List.of(5L));
    removed.put("future", Map.of("a", List.of(1, Map.of("b", new byte[3]))));
    Map<Object, Object> stored = new LinkedHashMap<>();
    stored.put(1, List.of("skipped"));
    stored.put("token_ids", List.of(1, 2));
    stored.put("block_size", 2);
    stored.put("block_hashes", List.of(6L));
    stored.put("type", "BlockStored");

    VllmEventBatch batch = VllmEventCodec.decode(pack(List.of(0.5, List.of(removed, stored), 1)));

    assertThat(batch.events())
        .containsExactly(
            new BlockRemoved(List.of(5L), "CPU", 4),
            new BlockStored(List.of(6L), null, new int[] {1, 2}, 2, null, null, null, null, null));
  }

  @Test
  void arrayEvent_missingTailFieldsAreAbsent() {
    List<Object> stored = Arrays.asList("BlockStored", List.of(1L), null, List.of(), 16);
    VllmEventBatch batch =
        VllmEventCodec.decode(
            pack(List.of(0.0, List.of(stored, List.of("BlockRemoved", List.of(2L))))));

    assertThat(batch.events())
        .containsExactly(
            new BlockStored(List.of(1L), null, new int[0], 16, null, null, null, null, null),
            new BlockRemoved(List.of(2L), null, null));
  }

  @Test
  void tokenCountNotMatchingBlocks_isKeptForTheConsumerToJudge() {
    List<Object> stored = Arrays.asList("BlockStored", List.of(1L, 2L), null, List.of(1, 2, 3), 16);

    BlockStored decoded =
        (BlockStored) VllmEventCodec.decode(pack(List.of(0.0, List.of(stored)))).events().get(0);

    assertThat(decoded.tokenIds()).containsExactly(1, 2, 3);
    assertThat(decoded.blockHashes()).hasSize(2);
  }

  @Test
  void deeplyNestedUnknownValues_areSkippedWithoutRecursion() {
    int depth = 100_000;
    byte[] nested = new byte[depth + 1];
    Arrays.fill(nested, 0, depth, (byte) 0x91); // [[[[...[nil]...]]]]
    nested[depth] = (byte) 0xC0;
    byte[] head = hexBytes("9400" + "90" + "c0");
    byte[] payload = Arrays.copyOf(head, head.length + nested.length);
    System.arraycopy(nested, 0, payload, head.length, nested.length);

    assertThat(VllmEventCodec.decode(payload)).isEqualTo(new VllmEventBatch(0, List.of(), null));
  }

  // ---------------------------------------------------------------- malformed

  static Stream<Arguments> malformed() {
    List<Object> okStored = Arrays.asList("BlockStored", List.of(1L), null, List.of(1), 1);
    return Stream.of(
        bad("empty payload", new byte[0], "batch: truncated"),
        bad("batch is an int", pack(5), "batch: expected an array or a map, got INTEGER"),
        bad("batch is nil", pack(null), "batch: expected an array or a map, got NIL"),
        bad("batch is a string", pack("batch"), "got STRING"),
        bad("batch of 1", pack(List.of(1.0)), "batch: expected at least 2 elements"),
        bad("batch of 0", pack(List.of()), "batch: expected at least 2 elements"),
        bad(
            "ts a string",
            pack(List.of("now", List.of())),
            "batch: ts: expected a number, got STRING"),
        bad(
            "ts nil",
            pack(Arrays.asList(null, List.of())),
            "batch: ts: expected a number, got NIL"),
        bad("ts a bool", pack(List.of(true, List.of())), "got BOOLEAN"),
        bad(
            "events a string",
            pack(List.of(1.0, "e")),
            "batch: events: expected an array, got STRING"),
        bad("events nil", pack(Arrays.asList(1.0, null)), "batch: events: expected an array"),
        bad("events a map", pack(List.of(1.0, Map.of())), "got MAP"),
        bad(
            "dp rank a string",
            pack(List.of(1.0, List.of(), "0")),
            "batch: data_parallel_rank: expected an integer, got STRING"),
        bad("dp rank a float", pack(List.of(1.0, List.of(), 1.0)), "got FLOAT"),
        bad("dp rank above int", pack(List.of(1.0, List.of(), 1L << 31)), "out of int range"),
        bad("map batch without ts", pack(Map.of("events", List.of())), "map batch without ts"),
        bad("map batch without events", pack(Map.of("ts", 1.0)), "map batch without events"),
        bad(
            "event an int",
            pack(List.of(1.0, List.of(3))),
            "event 0: expected an array or a map, got INTEGER"),
        bad(
            "event nil",
            pack(List.of(1.0, Arrays.asList(List.of("AllBlocksCleared"), null))),
            "event 1: expected an array or a map, got NIL"),
        bad("event a string", pack(List.of(1.0, List.of("BlockStored"))), "event 0: expected"),
        bad(
            "empty event array",
            pack(List.of(1.0, List.of(List.of()))),
            "event 0: expected the event type at index 0"),
        bad(
            "tag an int",
            pack(List.of(1.0, List.of(List.of(1, 2)))),
            "event 0: type: expected a string, got INTEGER"),
        bad(
            "unknown tag",
            pack(List.of(1.0, List.of(List.of("BlockMoved", List.of())))),
            "event 0: type: unknown event type \"BlockMoved\""),
        bad(
            "unknown tag in a map",
            pack(List.of(1.0, List.of(Map.of("type", "Nope")))),
            "unknown event type \"Nope\""),
        bad(
            "long unknown tag is abbreviated",
            pack(List.of(1.0, List.of(List.of("x".repeat(500))))),
            "\"" + "x".repeat(64) + "...\""),
        bad(
            "tag case differs",
            pack(List.of(1.0, List.of(List.of("blockstored")))),
            "unknown event type"),
        bad(
            "map event without type",
            pack(List.of(1.0, List.of(Map.of("block_hashes", List.of())))),
            "event 0: map event without type"),
        bad(
            "map event type nil",
            pack(List.of(1.0, List.of(mapOf("type", null)))),
            "event 0: type: expected a string, got NIL"),
        bad(
            "stored without block_size",
            pack(
                List.of(1.0, List.of(Arrays.asList("BlockStored", List.of(1L), null, List.of(1))))),
            "event 0: BlockStored without block_size"),
        bad(
            "stored with only a tag",
            pack(List.of(1.0, List.of(List.of("BlockStored")))),
            "BlockStored without block_hashes"),
        bad(
            "stored map without token_ids",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Map.of(
                            "type", "BlockStored", "block_hashes", List.of(), "block_size", 1)))),
            "BlockStored without token_ids"),
        bad(
            "removed without hashes",
            pack(List.of(1.0, List.of(List.of("BlockRemoved")))),
            "event 0: BlockRemoved without block_hashes"),
        bad(
            "block_hashes a string",
            pack(
                List.of(
                    1.0, List.of(okStored, Arrays.asList("BlockStored", "h", null, List.of(), 1)))),
            "event 1: block_hashes: expected an array, got STRING"),
        bad(
            "block_hashes nil",
            pack(List.of(1.0, List.of(Arrays.asList("BlockStored", null, null, List.of(), 1)))),
            "event 0: block_hashes: expected an array, got NIL"),
        bad(
            "nil hash",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored", Arrays.asList(1L, null), null, List.of(), 1)))),
            "event 0: block_hashes[1]: expected an integer or bin block hash, got NIL"),
        bad(
            "float hash",
            pack(List.of(1.0, List.of(List.of("BlockRemoved", List.of(1.5))))),
            "block_hashes[0]: expected an integer or bin block hash, got FLOAT"),
        bad(
            "parent a string",
            pack(List.of(1.0, List.of(Arrays.asList("BlockStored", List.of(), "p", List.of(), 1)))),
            "event 0: parent_block_hash: expected an integer or bin block hash, got STRING"),
        bad(
            "token_ids a map",
            pack(List.of(1.0, List.of(Arrays.asList("BlockStored", List.of(), null, Map.of(), 1)))),
            "event 0: token_ids: expected an array, got MAP"),
        bad(
            "token a string",
            pack(
                List.of(
                    1.0,
                    List.of(Arrays.asList("BlockStored", List.of(), null, List.of(1, 2, "3"), 1)))),
            "event 0: token_ids[2]: expected an integer, got STRING"),
        bad(
            "token a float",
            pack(
                List.of(
                    1.0, List.of(Arrays.asList("BlockStored", List.of(), null, List.of(1.0), 1)))),
            "token_ids[0]: expected an integer, got FLOAT"),
        bad(
            "token above int",
            pack(
                List.of(
                    1.0,
                    List.of(Arrays.asList("BlockStored", List.of(), null, List.of(1L << 31), 1)))),
            "token_ids[0]: integer 2147483648 out of int range"),
        bad(
            "token uint64",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored",
                            List.of(),
                            null,
                            List.of(new BigInteger("18446744073709551615")),
                            1)))),
            "token_ids[0]: integer 18446744073709551615 out of int range"),
        bad(
            "token below int",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored", List.of(), null, List.of(-(1L << 31) - 1), 1)))),
            "out of int range"),
        bad(
            "block_size a string",
            pack(
                List.of(
                    1.0, List.of(Arrays.asList("BlockStored", List.of(), null, List.of(), "16")))),
            "event 0: block_size: expected an integer, got STRING"),
        bad(
            "block_size nil",
            pack(
                List.of(
                    1.0, List.of(Arrays.asList("BlockStored", List.of(), null, List.of(), null)))),
            "event 0: block_size: expected an integer, got NIL"),
        bad(
            "lora_id a string",
            pack(
                List.of(
                    1.0,
                    List.of(Arrays.asList("BlockStored", List.of(), null, List.of(), 1, "7")))),
            "event 0: lora_id: expected an integer, got STRING"),
        bad(
            "medium an int",
            pack(
                List.of(
                    1.0,
                    List.of(Arrays.asList("BlockStored", List.of(), null, List.of(), 1, null, 0)))),
            "event 0: medium: expected a string, got INTEGER"),
        bad(
            "medium bin",
            pack(List.of(1.0, List.of(Arrays.asList("BlockRemoved", List.of(), new byte[] {'G'})))),
            "event 0: medium: expected a string, got BINARY"),
        bad(
            "lora_name an int",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored", List.of(), null, List.of(), 1, null, "GPU", 3)))),
            "event 0: lora_name: expected a string, got INTEGER"),
        bad(
            "group_idx a string",
            pack(List.of(1.0, List.of(Arrays.asList("BlockRemoved", List.of(), "GPU", "0")))),
            "event 0: group_idx: expected an integer, got STRING"),
        bad(
            "kv_cache_spec_kind an int",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Map.of(
                            "type",
                            "BlockStored",
                            "block_hashes",
                            List.of(),
                            "token_ids",
                            List.of(),
                            "block_size",
                            1,
                            "kv_cache_spec_kind",
                            1)))),
            "event 0: kv_cache_spec_kind: expected a string, got INTEGER"),
        bad(
            "extra_keys a string",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored",
                            List.of(),
                            null,
                            List.of(),
                            1,
                            null,
                            "GPU",
                            null,
                            "k")))),
            "event 0: extra_keys: expected an array, got STRING"),
        bad(
            "a block's extra keys a string",
            pack(
                List.of(
                    1.0,
                    List.of(
                        Arrays.asList(
                            "BlockStored",
                            List.of(1L),
                            null,
                            List.of(),
                            1,
                            null,
                            "GPU",
                            null,
                            Arrays.asList(null, "k"))))),
            "event 0: extra_keys[1]: expected an array, got STRING"),
        bad(
            "a map among the extra keys",
            pack(
                List.of(
                    1.0,
                    List.of(
                        mapOf(
                            "type",
                            "BlockStored",
                            "block_hashes",
                            List.of(),
                            "token_ids",
                            List.of(),
                            "block_size",
                            1,
                            "extra_keys",
                            List.of(List.of("a", Map.of("b", 1))))))),
            "event 0: extra_keys[0]: expected an extra key (nil, bool, number, string, bin or"
                + " array), got MAP"),
        bad(
            "extra keys nested too deep",
            pack(
                List.of(
                    1.0,
                    List.of(
                        mapOf(
                            "type",
                            "BlockStored",
                            "block_hashes",
                            List.of(),
                            "token_ids",
                            List.of(),
                            "block_size",
                            1,
                            "extra_keys",
                            List.of(nested(9, "deep")))))),
            "event 0: extra_keys[0]: extra keys nested deeper than 8 arrays"),
        bad(
            "invalid UTF-8 in an extra key",
            hexBytes(
                "9200"
                    + "91"
                    + "99"
                    + "ab426c6f636b53746f726564"
                    + "90"
                    + "c0"
                    + "90"
                    + "01"
                    + "c0"
                    + "c0"
                    + "c0"
                    + "91"
                    + "91"
                    + "a1ff"),
            "event 0: extra_keys[0]: invalid UTF-8"),
        bad(
            "an extension among the extra keys",
            hexBytes(
                "9200"
                    + "91"
                    + "99"
                    + "ab426c6f636b53746f726564"
                    + "90"
                    + "c0"
                    + "90"
                    + "01"
                    + "c0"
                    + "c0"
                    + "c0"
                    + "91"
                    + "91"
                    + "d40100"),
            "got EXTENSION"),
        bad(
            "wrong type in a field read before the tag",
            pack(List.of(1.0, List.of(mapOf("block_hashes", "x", "type", "BlockRemoved")))),
            "event 0: block_hashes: expected an array, got STRING"),
        bad(
            "trailing bytes",
            concat(pack(List.of(1.0, List.of())), pack(1)),
            "batch: 1 trailing bytes after the batch"),
        bad(
            "two batches",
            concat(pack(List.of(1.0, List.of())), pack(List.of(1.0, List.of()))),
            "trailing bytes"),
        bad("byte 0xc1 as ts", hexBytes("92c190"), "batch: ts: invalid msgpack byte 0xc1"),
        bad(
            "byte 0xc1 in a skipped element",
            hexBytes("9400" + "90" + "c0" + "c1"),
            "batch: invalid msgpack byte 0xc1"),
        bad(
            "invalid UTF-8 in the tag",
            hexBytes("9200" + "91" + "91" + "a2c328"),
            "event 0: type: invalid UTF-8"),
        bad(
            "invalid UTF-8 in a key",
            hexBytes("9200" + "91" + "81" + "a1ff" + "c0"),
            "event 0: invalid UTF-8"),
        bad(
            "ext as ts",
            hexBytes("92d40100" + "90"),
            "batch: ts: expected a number, got EXTENSION"),
        bad(
            "truncated uint64 hash",
            hexBytes("9200" + "91" + "92" + "ac426c6f636b52656d6f766564" + "91" + "cf01020304"),
            "event 0: block_hashes[0]: truncated"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformed")
  void malformed_failsAsFormatErrorSayingWhere(String name, byte[] payload, String message) {
    assertThatThrownBy(() -> VllmEventCodec.decode(payload))
        .isExactlyInstanceOf(VllmEventFormatException.class)
        .hasMessageContaining(message);
  }

  static Stream<Arguments> hostileLengths() {
    String blockRemoved = "ac426c6f636b52656d6f766564"; // "BlockRemoved"
    // [0, [["BlockStored", [], nil, [], 1, nil, nil, nil, <extra_keys ...]]]
    String storedWithExtraKeys =
        "9200"
            + "91"
            + "99"
            + "ab426c6f636b53746f726564"
            + "90"
            + "c0"
            + "90"
            + "01"
            + "c0"
            + "c0"
            + "c0";
    return Stream.of(
        // array32 of 2^31 elements: msgpack-core refuses the header itself
        bad("batch array32 2^31", hexBytes("dd80000000"), "batch: length header too large"),
        bad("batch array32 2^32-1", hexBytes("ddffffffff"), "batch: length header too large"),
        // 2^31 - 1 fits an int, so our own check stops it before anything is allocated
        bad(
            "batch array32 2^31-1",
            hexBytes("dd7fffffff"),
            "batch: array of 2147483647 elements cannot fit in the 0 bytes left"),
        bad(
            "events array32 2^31-1",
            hexBytes("9300dd7fffffff00"),
            "batch: events: array of 2147483647 elements cannot fit in the 1 bytes left"),
        bad("map batch map32 2^31-1", hexBytes("df7fffffff"), "map of 2147483647 entries"),
        bad("map32 2^30", hexBytes("df40000000" + "a27473"), "map of 1073741824 entries"),
        bad(
            "hashes array32",
            hexBytes("9200" + "91" + "92" + blockRemoved + "dd7fffffff"),
            "event 0: block_hashes: array of 2147483647 elements cannot fit"),
        bad(
            "token_ids array32",
            hexBytes(
                "9200"
                    + "91"
                    + "94"
                    + "ab426c6f636b53746f726564"
                    + "90"
                    + "c0"
                    + "dd7fffffff"
                    + "01"),
            "event 0: token_ids: array of 2147483647 elements cannot fit"),
        bad(
            "bin32 hash",
            hexBytes("9200" + "91" + "92" + blockRemoved + "91" + "c67fffffff"),
            "event 0: block_hashes[0]: bin of 2147483647 bytes cannot fit"),
        bad(
            "bin32 2^31 hash",
            hexBytes("9200" + "91" + "92" + blockRemoved + "91" + "c680000000"),
            "event 0: block_hashes[0]: length header too large"),
        bad(
            "str32 tag",
            hexBytes("9200" + "91" + "91" + "db7fffffff" + "41"),
            "event 0: type: string of 2147483647 bytes cannot fit"),
        bad(
            "str32 key",
            hexBytes("9200" + "91" + "81" + "db7fffffff"),
            "string of 2147483647 bytes cannot fit"),
        // in values that are only skipped: msgpack-core's skipValue would overflow 2^30 * 2
        bad(
            "skipped map32 2^30",
            hexBytes("9400" + "90" + "c0" + "df40000000"),
            "map of 1073741824 entries cannot fit"),
        bad(
            "skipped array32",
            hexBytes("9400" + "90" + "c0" + "dd7fffffff"),
            "array of 2147483647 elements cannot fit"),
        bad(
            "skipped bin32",
            hexBytes("9400" + "90" + "c0" + "c67fffffff"),
            "raw value of 2147483647 bytes cannot fit"),
        bad(
            "skipped str32",
            hexBytes("9400" + "90" + "c0" + "db7fffffff"),
            "raw value of 2147483647 bytes cannot fit"),
        bad("skipped ext32", hexBytes("9400" + "90" + "c0" + "c97fffffff01"), "truncated"),
        bad(
            "bin32 extra key",
            hexBytes(storedWithExtraKeys + "91" + "91" + "c67fffffff"),
            "event 0: extra_keys[0]: bin of 2147483647 bytes cannot fit"),
        bad(
            "array32 extra keys",
            hexBytes(storedWithExtraKeys + "dd7fffffff"),
            "event 0: extra_keys: array of 2147483647 elements cannot fit"),
        bad(
            "array32 of a block's keys",
            hexBytes(storedWithExtraKeys + "91" + "dd7fffffff"),
            "event 0: extra_keys[0]: array of 2147483647 elements cannot fit"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostileLengths")
  void hostileLengthHeaders_failCleanlyWithoutAllocating(
      String name, byte[] payload, String message) {
    assertThatThrownBy(() -> VllmEventCodec.decode(payload))
        .isExactlyInstanceOf(VllmEventFormatException.class)
        .hasMessageContaining(message);
  }

  @Test
  void formatErrorMessage_namesThePlaceAndTheByte() {
    byte[] payload =
        pack(
            List.of(
                1.0,
                List.of(
                    List.of("AllBlocksCleared"),
                    List.of("AllBlocksCleared"),
                    Arrays.asList("BlockStored", "oops", null, List.of(), 1))));

    // 0x93, float64 ts (9), 0x93, two ["AllBlocksCleared"] (18 each), 0x95, "BlockStored" (12)
    int at = 1 + 9 + 1 + 18 + 18 + 1 + 12;
    assertThatThrownBy(() -> VllmEventCodec.decode(payload))
        .isExactlyInstanceOf(VllmEventFormatException.class)
        .hasMessage("event 2: block_hashes: expected an array, got STRING (at byte " + at + ")");
  }

  @Test
  void nullArguments_areProgrammingErrors() {
    assertThatThrownBy(() -> VllmEventCodec.decode(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> VllmEventCodec.encode(null, Encoding.MAP))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> VllmEventCodec.encode(new VllmEventBatch(0, List.of(), 0), null))
        .isInstanceOf(NullPointerException.class);
  }

  // ---------------------------------------------------------------- helpers

  private static Arguments bad(String name, byte[] payload, String message) {
    return Arguments.of(name, payload, message);
  }

  private static int[] tokens(int start, int n) {
    return IntStream.range(start, start + n).toArray();
  }

  private static byte[] digestA() {
    byte[] d = new byte[32];
    for (int i = 0; i < 32; i++) {
      d[i] = (byte) i;
    }
    return d;
  }

  private static byte[] digestB() {
    byte[] d = new byte[32];
    for (int i = 0; i < 32; i++) {
      d[i] = (byte) (0xE0 + i);
    }
    return d;
  }

  private static byte[] digestP() {
    byte[] d = new byte[32];
    for (int i = 0; i < 32; i++) {
      d[i] = (byte) (0xA0 + (i % 16));
    }
    return d;
  }

  private static long lastEight(byte[] digest) {
    return ByteBuffer.wrap(digest, digest.length - 8, 8).getLong();
  }

  /** Unsigned decimal u64 values as Java holds them. */
  private static final class BlockHasherVectors {
    static long u64(String decimal) {
      return Long.parseUnsignedLong(decimal);
    }
  }

  private static byte[] golden(String name) {
    return HexFixtures.bytes("/golden/vllm/" + name);
  }

  private static byte[] hashBytes(long hash) {
    byte[] batch =
        VllmEventCodec.encode(
            new VllmEventBatch(0, List.of(BlockRemoved.of(List.of(hash))), null), Encoding.ARRAY);
    // [f64 ts, [["BlockRemoved", [hash], "GPU", nil]], nil]: the hash follows "BlockRemoved", 0x91
    // and is followed by "GPU" (4 bytes), nil, nil
    int at = 1 + 9 + 1 + 1 + 13 + 1;
    return Arrays.copyOfRange(batch, at, batch.length - 6);
  }

  private static long decodeHash(String hashHex) {
    VllmEventBatch batch = VllmEventCodec.decode(batchWithHashes(hexBytes(hashHex)));
    return ((BlockRemoved) batch.events().get(0)).blockHashes().get(0);
  }

  /** {@code [0, [["BlockRemoved", [hash]]]]} around the raw bytes of one hash. */
  private static byte[] batchWithHashes(byte[] hash) {
    return concat(hexBytes("9200" + "91" + "92" + "ac426c6f636b52656d6f766564" + "91"), hash);
  }

  /** {@code value} inside {@code depth} one-element arrays. */
  private static Object nested(int depth, Object value) {
    Object v = value;
    for (int i = 0; i < depth; i++) {
      v = List.of(v);
    }
    return v;
  }

  private static Map<String, Object> mapOf(Object... keyValues) {
    Map<String, Object> map = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put((String) keyValues[i], keyValues[i + 1]);
    }
    return map;
  }

  /**
   * Packs plain Java values the way Python msgpack packs the equivalent Python values (lists,
   * insertion-ordered dicts, ints in the smallest form, floats as float64, str, bytes as bin),
   * independently of the codec: it goes through msgpack-core's generic packer.
   */
  static byte[] pack(Object value) {
    try (MessageBufferPacker out = MessagePack.newDefaultBufferPacker()) {
      packValue(out, value);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void packValue(MessageBufferPacker out, Object value) throws IOException {
    if (value == null) {
      out.packNil();
    } else if (value instanceof Boolean b) {
      out.packBoolean(b);
    } else if (value instanceof Integer i) {
      out.packLong(i);
    } else if (value instanceof Long l) {
      out.packLong(l);
    } else if (value instanceof BigInteger b) {
      out.packBigInteger(b);
    } else if (value instanceof Double d) {
      out.packDouble(d);
    } else if (value instanceof String s) {
      out.packString(s);
    } else if (value instanceof byte[] bytes) {
      out.packBinaryHeader(bytes.length);
      out.writePayload(bytes);
    } else if (value instanceof List<?> list) {
      out.packArrayHeader(list.size());
      for (Object element : list) {
        packValue(out, element);
      }
    } else if (value instanceof Map<?, ?> map) {
      out.packMapHeader(map.size());
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        packValue(out, entry.getKey());
        packValue(out, entry.getValue());
      }
    } else {
      throw new IllegalArgumentException("cannot pack " + value.getClass());
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static String hex(byte[] bytes) {
    return HexFormat.of().formatHex(bytes);
  }

  private static byte[] hexBytes(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static byte[] mutate(byte[] payload, Random random) {
    byte[] out = payload.clone();
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = random.nextInt(out.length);
      switch (random.nextInt(4)) {
        case 0 -> out[at] = (byte) random.nextInt(256);
        case 1 -> out[at] ^= (byte) (1 << random.nextInt(8));
        case 2 -> {
          // a header byte that claims a lot: array32/map32/bin32/str32 with a random length
          byte[] header = {
            (byte) new int[] {0xdd, 0xdf, 0xc6, 0xdb}[random.nextInt(4)],
            (byte) random.nextInt(256),
            (byte) random.nextInt(256),
            0,
            0
          };
          int n = Math.min(header.length, out.length - at);
          System.arraycopy(header, 0, out, at, n);
        }
        default -> {
          if (out.length > 1) {
            byte[] shorter = new byte[out.length - 1];
            System.arraycopy(out, 0, shorter, 0, at);
            System.arraycopy(out, at + 1, shorter, at, out.length - at - 1);
            out = shorter;
          }
        }
      }
    }
    return out;
  }

  private static final String[] MEDIA = {
    "GPU", "CPU", "DISK", "médium-✓", "m".repeat(40), "M".repeat(300), ""
  };
  private static final long[] EDGE_HASHES = {
    0,
    1,
    Long.MAX_VALUE,
    TWO_63,
    MAX_U64,
    127,
    128,
    255,
    256,
    65535,
    65536,
    0xFFFFFFFFL,
    0x100000000L,
    -32,
    -33
  };

  private static VllmEventBatch randomBatch(Random random) {
    int n = random.nextInt(6);
    List<VllmEvent> events = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      events.add(
          switch (random.nextInt(5)) {
            case 0, 1 -> randomStored(random);
            case 2, 3 ->
                new BlockRemoved(
                    randomHashes(random), randomOpt(random, MEDIA), randomOptInt(random));
            default -> new AllBlocksCleared();
          });
    }
    double ts =
        switch (random.nextInt(4)) {
          case 0 -> 0.0;
          case 1 -> random.nextInt(2_000_000_000);
          case 2 -> -random.nextDouble();
          default -> 1.7e9 + random.nextDouble() * 1e8;
        };
    return new VllmEventBatch(ts, events, randomOptInt(random));
  }

  private static BlockStored randomStored(Random random) {
    List<Long> hashes = randomHashes(random);
    int blockSize = 1 + random.nextInt(64);
    int tokenCount =
        random.nextInt(10) == 0 ? random.nextInt(5) : hashes.size() * Math.min(blockSize, 8);
    int[] tokens = new int[tokenCount];
    for (int t = 0; t < tokens.length; t++) {
      tokens[t] =
          switch (random.nextInt(4)) {
            case 0 -> random.nextInt(128);
            case 1 -> random.nextInt(200_000);
            case 2 -> random.nextInt();
            default -> INT_FORM_EDGES[random.nextInt(INT_FORM_EDGES.length)];
          };
    }
    return new BlockStored(
        hashes,
        random.nextBoolean() ? null : randomHash(random),
        tokens,
        blockSize,
        randomOptInt(random),
        randomOpt(random, MEDIA),
        randomOpt(random, new String[] {"adapter-a", "lora/ü", "x".repeat(70_000)}),
        randomOptInt(random),
        randomOpt(random, new String[] {"full_attention", "sliding_window", "mla_attention"}),
        random.nextInt(3) == 0 ? null : randomExtraKeys(random, hashes.size()));
  }

  private static List<List<Object>> randomExtraKeys(Random random, int blocks) {
    int n = random.nextInt(4) == 0 ? random.nextInt(4) : blocks;
    List<List<Object>> perBlock = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (random.nextInt(3) == 0) {
        perBlock.add(null);
      } else {
        perBlock.add(randomKeys(random, 0));
      }
    }
    return perBlock;
  }

  private static List<Object> randomKeys(Random random, int depth) {
    List<Object> keys = new ArrayList<>();
    for (int k = random.nextInt(4); k > 0; k--) {
      keys.add(
          switch (random.nextInt(depth < 2 ? 9 : 8)) {
            case 0 ->
                new String[] {"adapter-a", "0123456789abcdef".repeat(4), "", "sel-ü"}
                    [random.nextInt(4)];
            case 1 -> randomHash(random) >>> 1; // a non-negative long
            case 2 -> -1L - random.nextInt(70_000);
            case 3 -> new BigInteger(Long.toUnsignedString(Long.MIN_VALUE | random.nextLong()));
            case 4 -> random.nextDouble() * 1e6;
            case 5 -> random.nextBoolean();
            case 6 -> {
              byte[] bytes = new byte[random.nextInt(4) == 0 ? 300 : random.nextInt(40)];
              random.nextBytes(bytes);
              yield ByteBuffer.wrap(bytes);
            }
            case 7 -> null;
            default -> randomKeys(random, depth + 1); // e.g. (identifier, offset)
          });
    }
    return keys;
  }

  private static List<Long> randomHashes(Random random) {
    int n = random.nextInt(5);
    List<Long> hashes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      hashes.add(randomHash(random));
    }
    return hashes;
  }

  private static long randomHash(Random random) {
    return random.nextInt(3) == 0
        ? EDGE_HASHES[random.nextInt(EDGE_HASHES.length)]
        : random.nextLong();
  }

  private static Integer randomOptInt(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> null;
      case 1 -> random.nextInt(8);
      case 2 -> random.nextInt();
      default -> -random.nextInt(200);
    };
  }

  private static String randomOpt(Random random, String[] choices) {
    return random.nextInt(3) == 0 ? null : choices[random.nextInt(choices.length)];
  }
}
