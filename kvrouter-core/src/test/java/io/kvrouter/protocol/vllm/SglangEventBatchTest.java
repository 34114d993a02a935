package io.kvrouter.protocol.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SGLang's KV event batches (a copy of vLLM's publisher: the same frames, its own struct layout,
 * docs/notes/plain-engines.md §4.2) read by the vLLM decoder: {@code [ts, events]} without a rank,
 * one page per {@code BlockStored} of six fields (seven with {@code medium}), signed int64 hashes.
 * The bytes are the note's worked example, assembled from msgspec's {@code array_like} and {@code
 * omit_defaults} rules.
 */
class SglangEventBatchTest {
  @Test
  void theWorkedExample_decodes() {
    byte[] payload =
        HexFormat.of()
            .parseHex(
                "92"
                    + "cb3ff8000000000000"
                    + "91"
                    + "96"
                    + "ab426c6f636b53746f726564"
                    + "91cd1234"
                    + "c0"
                    + "920102"
                    + "02"
                    + "c0");
    VllmEventBatch batch = VllmEventCodec.decode(payload);
    assertThat(batch.dataParallelRank()).isNull();
    assertThat(batch.events()).hasSize(1);
    VllmEvent.BlockStored stored = (VllmEvent.BlockStored) batch.events().get(0);
    assertThat(stored.blockHashes()).containsExactly(0x1234L);
    assertThat(stored.parentBlockHash()).isNull();
    assertThat(stored.tokenIds()).containsExactly(1, 2);
    assertThat(stored.blockSize()).isEqualTo(2);
  }

  @Test
  void theNewestLayout_withMediumAndANegativeHash_decodes() {
    // [1.5, [["BlockStored", [-2], 7, [1, 2], 2, nil, "GPU"]]]: a signed int64 hash (0xfe) and a
    // parent, as SGLang's chained SHA-256 page hashes are
    byte[] payload =
        HexFormat.of()
            .parseHex(
                "92"
                    + "cb3ff8000000000000"
                    + "91"
                    + "97"
                    + "ab426c6f636b53746f726564"
                    + "91fe"
                    + "07"
                    + "920102"
                    + "02"
                    + "c0"
                    + "a3475055");
    VllmEvent.BlockStored stored =
        (VllmEvent.BlockStored) VllmEventCodec.decode(payload).events().get(0);
    assertThat(stored.blockHashes()).isEqualTo(List.of(-2L));
    assertThat(stored.parentBlockHash()).isEqualTo(7L);
    assertThat(stored.medium()).isEqualTo("GPU");
  }
}
