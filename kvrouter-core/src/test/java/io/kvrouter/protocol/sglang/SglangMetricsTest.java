package io.kvrouter.protocol.sglang;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.vllm.VllmMetrics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * SGLang's {@code /metrics} families in their three generations (docs/notes/plain-engines.md §3.2).
 */
class SglangMetricsTest {
  @Test
  void theNewestGauges_givePageSizeAndPages() {
    Map<Integer, VllmMetrics.Engine> ranks =
        SglangMetrics.parse(
            """
            # TYPE sglang:num_running_reqs gauge
            sglang:num_running_reqs{engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"} 3.0
            sglang:num_queue_reqs{engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"} 1.0
            sglang:token_usage{engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"} 0.5
            sglang:page_size{engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"} 16.0
            sglang:num_pages{engine_type="unified",model_name="Qwen/Qwen3-8B",pp_rank="0",tp_rank="0"} 27512.0
            """);
    VllmMetrics.Engine rank = ranks.get(0);
    assertThat(rank.running()).hasValue(3);
    assertThat(rank.waiting()).hasValue(1);
    assertThat(rank.blockSize()).hasValue(16);
    assertThat(rank.numGpuBlocks()).hasValue(27512);
    assertThat(rank.usedBlocks()).hasValue(13756);
  }

  @Test
  void olderFormsAndDataParallelRanks_areRead() {
    Map<Integer, VllmMetrics.Engine> ranks =
        SglangMetrics.parse(
            """
            sglang:cache_config_info{num_pages="1000",page_size="32"} 1.0
            sglang:token_usage{dp_rank="1"} 0.25
            sglang:max_total_num_tokens{dp_rank="1"} 64000.0
            sglang:page_size{dp_rank="1"} 32.0
            """);
    assertThat(ranks.get(0).blockSize()).hasValue(32);
    assertThat(ranks.get(0).numGpuBlocks()).hasValue(1000);
    assertThat(ranks.get(1).numGpuBlocks()).as("tokens / page size").hasValue(2000);
    assertThat(ranks.get(1).usedBlocks()).hasValue(500);
  }

  @Test
  void whatTheSimulatedWorkerWrites_readsBack() {
    Map<Integer, VllmMetrics.Engine> ranks =
        SglangMetrics.parse(
            SglangMetrics.write(
                "m",
                16,
                List.of(
                    new VllmMetrics.Figures(0, 2, 0, 0.5, 100),
                    new VllmMetrics.Figures(1, 0, 0, 0.0, 100))));
    assertThat(ranks.get(0).usedBlocks()).hasValue(50);
    assertThat(ranks.get(1).blockSize()).hasValue(16);
  }
}
