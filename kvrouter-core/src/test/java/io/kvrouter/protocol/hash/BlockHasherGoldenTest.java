package io.kvrouter.protocol.hash;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Golden vectors in {@code golden/hash/block-hashes.txt}, computed outside Java by the reference
 * xxHash C library (see {@code generate.py} beside it). Cover every XXH3 input-length class a block
 * can fall in, high-bit (negative {@code int}) token ids, partial and empty inputs, LoRA, cache
 * namespace and UTF-8 names. Each case runs on the fast (int[]) and the portable (byte[]) path.
 */
class BlockHasherGoldenTest {
  private static final String RESOURCE = "/golden/hash/block-hashes.txt";

  record GoldenCase(
      String name,
      int blockSize,
      String lora,
      String namespace,
      long seed,
      int[] tokens,
      long[] local,
      long[] seq) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<GoldenCase> cases() throws IOException {
    String text;
    try (InputStream in = BlockHasherGoldenTest.class.getResourceAsStream(RESOURCE)) {
      assertThat(in).as(RESOURCE).isNotNull();
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    List<GoldenCase> cases = new ArrayList<>();
    for (String chunk : text.split("\n\\s*\n")) {
      Map<String, String> kv = new LinkedHashMap<>();
      for (String line : chunk.split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        int eq = line.indexOf('=');
        kv.put(line.substring(0, eq), line.substring(eq + 1));
      }
      if (kv.isEmpty()) {
        continue;
      }
      cases.add(
          new GoldenCase(
              kv.get("name"),
              Integer.parseInt(kv.get("block_size")),
              kv.get("lora"),
              kv.get("namespace"),
              Long.parseUnsignedLong(kv.get("seed")),
              words(kv.get("tokens")).mapToInt(w -> (int) Long.parseLong(w)).toArray(),
              words(kv.get("local")).mapToLong(Long::parseUnsignedLong).toArray(),
              words(kv.get("seq")).mapToLong(Long::parseUnsignedLong).toArray()));
    }
    return cases;
  }

  private static Stream<String> words(String s) {
    return Arrays.stream(s.trim().split(" ")).filter(w -> !w.isEmpty());
  }

  @Test
  void goldenFile_hasAllCases() throws IOException {
    List<GoldenCase> cases = cases();
    assertThat(cases).hasSize(19);
    assertThat(cases)
        .extracting(GoldenCase::name)
        .contains("reference-0..31", "bs16-empty", "bs512-lora-and-namespace-utf8");
    for (GoldenCase c : cases) {
      assertThat(c.local()).as(c.name()).hasSize(c.tokens().length / c.blockSize());
      assertThat(c.seq()).as(c.name()).hasSize(c.local().length);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void seed_matchesGolden(GoldenCase c) {
    assertThat(BlockHasher.seedFor(c.lora(), c.namespace())).isEqualTo(c.seed());
    assertThat(BlockHasher.of(c.blockSize(), c.lora(), c.namespace()).seed()).isEqualTo(c.seed());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void fastPath_matchesGolden(GoldenCase c) {
    BlockHasher h = BlockHasher.of(c.blockSize(), c.lora(), c.namespace());
    assertThat(h.localHashes(c.tokens())).containsExactly(c.local());
    assertThat(h.sequenceHashes(c.tokens())).containsExactly(c.seq());
    assertThat(BlockHasher.chain(c.local())).containsExactly(c.seq());
    long[] out = new long[c.local().length];
    assertThat(h.sequenceHashes(c.tokens(), 0, c.tokens().length, out, 0))
        .isEqualTo(c.seq().length);
    assertThat(out).containsExactly(c.seq());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void portablePath_matchesGolden(GoldenCase c) {
    BlockHasher h = BlockHasher.portable(c.blockSize(), c.seed());
    assertThat(h.localHashes(c.tokens())).containsExactly(c.local());
    assertThat(h.sequenceHashes(c.tokens())).containsExactly(c.seq());
    assertThat(BlockHasher.chain(c.local(), false)).containsExactly(c.seq());
  }
}
