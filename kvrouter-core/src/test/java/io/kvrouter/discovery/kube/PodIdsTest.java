package io.kvrouter.discovery.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Pod-name instance ids against vectors worked out with rustc 1.95's {@code DefaultHasher}. */
class PodIdsTest {
  @Test
  void podNames_hashAsRustsDefaultHasher_thenMaskTo53Bits() {
    assertThat(PodIds.sipHash13(withStrTerminator("worker-0")))
        .isEqualTo(Long.parseUnsignedLong("b2843710f49c0cff", 16));
    assertThat(PodIds.instanceId("worker-0")).isEqualTo(1186445869714687L);
    assertThat(PodIds.sipHash13(withStrTerminator("vllm-agg-0-worker-7c9d8f6b5-x2k4q")))
        .isEqualTo(Long.parseUnsignedLong("c951123e34a7545c", 16));
    assertThat(PodIds.instanceId("vllm-agg-0-worker-7c9d8f6b5-x2k4q")).isEqualTo(4805132984734812L);
  }

  @Test
  void sipHash13_ofNothing_isTheReferenceValue() {
    // SipHash-1-3 with zero keys over the empty input (the reference implementation's value)
    assertThat(PodIds.sipHash13(new byte[0]))
        .isEqualTo(Long.parseUnsignedLong("d1fba762150c532c", 16));
  }

  private static byte[] withStrTerminator(String name) {
    byte[] text = name.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[text.length + 1];
    System.arraycopy(text, 0, bytes, 0, text.length);
    bytes[text.length] = (byte) 0xFF;
    return bytes;
  }
}
