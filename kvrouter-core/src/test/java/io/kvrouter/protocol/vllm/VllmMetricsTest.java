package io.kvrouter.protocol.vllm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * vLLM's {@code /metrics} families read by name, per engine, as docs/notes/plain-engines.md §3.1.
 */
class VllmMetricsTest {
  private static final String EXPOSITION =
      """
      # HELP vllm:num_requests_running Number of requests in model execution batches.
      # TYPE vllm:num_requests_running gauge
      vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-8B"} 3.0
      vllm:num_requests_running{engine="1",model_name="Qwen/Qwen3-8B"} 1.0
      # TYPE vllm:num_requests_waiting gauge
      vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-8B"} 2.0
      # TYPE vllm:kv_cache_usage_perc gauge
      vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-8B"} 0.25
      vllm:gpu_cache_usage_perc{engine="1",model_name="Qwen/Qwen3-8B"} 0.5
      # TYPE vllm:cache_config_info gauge
      vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",num_cpu_blocks="0",num_gpu_blocks="27512",prefix_caching_hash_algo="sha256",sliding_window="None"} 1.0
      vllm:cache_config_info{block_size="16",engine="1",num_gpu_blocks="None"} 1.0
      vllm:prompt_tokens_total{engine="0",model_name="a \\"quoted\\", name"} 12.0
      process_cpu_seconds_total 1.5
      """;

  @Test
  void eachEnginesFamilies_areReadByLabelName() {
    Map<Integer, VllmMetrics.Engine> engines = VllmMetrics.parse(EXPOSITION);
    VllmMetrics.Engine first = engines.get(0);
    assertThat(first.running()).hasValue(3);
    assertThat(first.waiting()).hasValue(2);
    assertThat(first.kvUsage()).hasValue(0.25);
    assertThat(first.blockSize()).hasValue(16);
    assertThat(first.numGpuBlocks()).hasValue(27512);
    assertThat(first.usedBlocks()).hasValue(6878);

    VllmMetrics.Engine second = engines.get(1);
    assertThat(second.kvUsage()).as("the older family name").hasValue(0.5);
    assertThat(second.numGpuBlocks())
        .as("\"None\" before profiling")
        .isEqualTo(OptionalLong.empty());
    assertThat(second.usedBlocks()).isEmpty();
    assertThat(second.waiting()).isEmpty();
  }

  @Test
  void seriesWithoutAnEngineLabel_areEngineZero_andLabelsUnescape() {
    assertThat(
            VllmMetrics.parse(
                    "vllm:cache_config_info{num_gpu_blocks=\"8\",block_size=\"32\"} 1.0\n")
                .get(0)
                .blockSize())
        .isEqualTo(OptionalInt.of(32));
    assertThat(io.kvrouter.protocol.PrometheusSamples.labels("a=\"x\\\"y\",b=\"1\\\\2\", c=\"z\""))
        .containsExactly(Map.entry("a", "x\"y"), Map.entry("b", "1\\2"), Map.entry("c", "z"));
  }

  @Test
  void whatTheSimulatedWorkerWrites_readsBack() {
    String written =
        VllmMetrics.write(
            "m",
            16,
            List.of(
                new VllmMetrics.Figures(0, 4, 0, 0.5, 1024),
                new VllmMetrics.Figures(1, 0, 1, 0.0, 1024)));
    assertThat(written.lines().filter(l -> l.startsWith("# TYPE vllm:num_requests_running")))
        .as("one TYPE line per family")
        .hasSize(1);
    Map<Integer, VllmMetrics.Engine> engines = VllmMetrics.parse(written);
    assertThat(engines.get(0).usedBlocks()).hasValue(512);
    assertThat(engines.get(1).waiting()).hasValue(1);
    assertThat(engines.get(1).blockSize()).hasValue(16);
  }
}
