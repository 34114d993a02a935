package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The bytes vLLM hashes for a block, written out by hand from RFC 8949's canonical rules. */
class CanonicalCborTest {

  @Test
  void block_isArray3_ofBstr32_shortestUints_andNull() {
    byte[] parent = new byte[32];
    Arrays.fill(parent, (byte) 0xab);
    int[] tokens = {0, 23, 24, 255, 256, 65535, 65536, Integer.MAX_VALUE};
    byte[] encoded = new CanonicalCbor().block(parent, tokens, 0, tokens.length).toByteArray();

    String hex = HexFormat.of().formatHex(encoded);
    assertThat(hex)
        .isEqualTo(
            "83" // array(3)
                + "5820"
                + "ab".repeat(32) // bstr(32)
                + "88" // array(8)
                + "00"
                + "17"
                + "1818"
                + "18ff"
                + "190100"
                + "19ffff"
                + "1a00010000"
                + "1a7fffffff"
                + "f6"); // null
  }

  @Test
  void block_encodesOnlyTheGivenSlice_andLongArraysGetAWiderHead() {
    int[] tokens = new int[30];
    byte[] encoded = new CanonicalCbor().block(new byte[32], tokens, 2, 24).toByteArray();
    assertThat(HexFormat.of().formatHex(encoded, 35, 37)).isEqualTo("9818"); // array(24)
    assertThat(encoded).hasSize(1 + 2 + 32 + 2 + 24 + 1);
  }
}
