package io.kvrouter.protocol.sglang;

import io.kvrouter.protocol.PrometheusSamples;
import io.kvrouter.protocol.vllm.VllmMetrics;
import io.kvrouter.protocol.vllm.VllmMetrics.Engine;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The load and KV capacity an SGLang server reports on {@code GET /metrics} (with {@code
 * --enable-metrics}; docs/notes/plain-engines.md §3.2), per data-parallel rank (label {@code
 * dp_rank}, 0 without): {@code sglang:num_running_reqs}, {@code sglang:num_queue_reqs}, {@code
 * sglang:token_usage} (0..1), and the cache's shape, which SGLang's page is the block of: {@code
 * sglang:page_size} and {@code sglang:num_pages} (newest), else the labels {@code page_size} and
 * {@code num_pages} of {@code sglang:cache_config_info}, else {@code sglang:max_total_num_tokens}
 * divided by the page size. The same figures as vLLM's ({@link VllmMetrics.Engine}).
 */
public final class SglangMetrics {
  private static final String PREFIX = "sglang:";

  private SglangMetrics() {}

  /** The ranks a scrape reports. */
  public static Map<Integer, Engine> parse(String exposition) {
    Map<Integer, Engine> ranks = new LinkedHashMap<>();
    Map<Integer, Long> totalTokens = new LinkedHashMap<>();
    for (PrometheusSamples.Sample sample : PrometheusSamples.parse(exposition, PREFIX)) {
      int rank = VllmMetrics.intLabel(sample.labels().get("dp_rank")).orElse(0);
      Engine was = ranks.getOrDefault(rank, Engine.EMPTY);
      double value = sample.value();
      Engine now =
          switch (sample.name()) {
            case "sglang:num_running_reqs" -> was.withRunning((long) value);
            case "sglang:num_queue_reqs" -> was.withWaiting((long) value);
            case "sglang:token_usage" -> was.withKvUsage(value);
            case "sglang:page_size" ->
                was.withShape(OptionalInt.of((int) value), OptionalLong.empty());
            case "sglang:num_pages" ->
                was.withShape(OptionalInt.empty(), OptionalLong.of((long) value));
            case "sglang:cache_config_info" ->
                was.withShape(
                    VllmMetrics.intLabel(sample.labels().get("page_size")),
                    VllmMetrics.longLabel(sample.labels().get("num_pages")));
            case "sglang:max_total_num_tokens" -> {
              totalTokens.put(rank, (long) value);
              yield was;
            }
            default -> null;
          };
      if (now != null) {
        ranks.put(rank, now);
      }
    }
    totalTokens.forEach(
        (rank, tokens) -> {
          Engine engine = ranks.get(rank);
          if (engine.numGpuBlocks().isEmpty() && engine.blockSize().isPresent()) {
            ranks.put(
                rank,
                engine.withShape(
                    OptionalInt.empty(), OptionalLong.of(tokens / engine.blockSize().getAsInt())));
          }
        });
    return ranks;
  }

  /** The families as SGLang's newest collector writes them, for the simulated worker. */
  public static String write(String model, int pageSize, List<VllmMetrics.Figures> ranks) {
    StringBuilder out = new StringBuilder();
    String[][] families = {
      {"sglang:num_running_reqs", "running"},
      {"sglang:num_queue_reqs", "waiting"},
      {"sglang:token_usage", "usage"},
      {"sglang:page_size", "page"},
      {"sglang:num_pages", "pages"}
    };
    for (String[] family : families) {
      out.append("# TYPE ").append(family[0]).append(" gauge\n");
      for (VllmMetrics.Figures f : ranks) {
        double value =
            switch (family[1]) {
              case "running" -> f.running();
              case "waiting" -> f.waiting();
              case "usage" -> f.kvUsage();
              case "page" -> pageSize;
              default -> f.numGpuBlocks();
            };
        out.append(family[0])
            .append("{dp_rank=\"")
            .append(f.engine())
            .append("\",engine_type=\"unified\",model_name=\"")
            .append(model.replace("\\", "\\\\").replace("\"", "\\\""))
            .append("\",pp_rank=\"0\",tp_rank=\"0\"} ")
            .append(value)
            .append('\n');
      }
    }
    return out.toString();
  }
}
