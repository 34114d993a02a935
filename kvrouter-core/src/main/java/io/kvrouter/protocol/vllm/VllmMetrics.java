package io.kvrouter.protocol.vllm;

import io.kvrouter.protocol.PrometheusSamples;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * The load and KV capacity a {@code vllm serve} reports on {@code GET /metrics} (Prometheus text;
 * docs/notes/plain-engines.md §3.1, vLLM {@code vllm/v1/metrics/loggers.py} @005a810b): per engine
 * (data-parallel rank, label {@code engine}), {@code vllm:num_requests_running}, {@code
 * vllm:num_requests_waiting}, {@code vllm:kv_cache_usage_perc} (0..1; the older name {@code
 * vllm:gpu_cache_usage_perc} is read too) and the info gauge {@code vllm:cache_config_info}, whose
 * labels {@code block_size} and {@code num_gpu_blocks} give the cache's shape ({@code "None"} until
 * the engine has profiled). Labels are read by name, never by position; other families are skipped.
 * The simulated worker writes the same families.
 */
public final class VllmMetrics {
  private static final String PREFIX = "vllm:";

  private VllmMetrics() {}

  /**
   * One engine's figures; each is empty when the scrape did not carry it.
   *
   * @param kvUsage the fraction of KV blocks in use
   */
  public record Engine(
      OptionalLong running,
      OptionalLong waiting,
      java.util.OptionalDouble kvUsage,
      OptionalInt blockSize,
      OptionalLong numGpuBlocks) {

    /** Nothing known. */
    public static final Engine EMPTY =
        new Engine(
            OptionalLong.empty(),
            OptionalLong.empty(),
            java.util.OptionalDouble.empty(),
            OptionalInt.empty(),
            OptionalLong.empty());

    public Engine withRunning(long value) {
      return new Engine(OptionalLong.of(value), waiting, kvUsage, blockSize, numGpuBlocks);
    }

    public Engine withWaiting(long value) {
      return new Engine(running, OptionalLong.of(value), kvUsage, blockSize, numGpuBlocks);
    }

    public Engine withKvUsage(double value) {
      return new Engine(
          running, waiting, java.util.OptionalDouble.of(value), blockSize, numGpuBlocks);
    }

    /** The cache's block size and block count, each where known. */
    public Engine withShape(OptionalInt size, OptionalLong blocks) {
      return new Engine(
          running,
          waiting,
          kvUsage,
          size.isPresent() ? size : blockSize,
          blocks.isPresent() ? blocks : numGpuBlocks);
    }

    /** The blocks in use, from the usage fraction and the capacity, when both are known. */
    public OptionalLong usedBlocks() {
      if (kvUsage.isEmpty() || numGpuBlocks.isEmpty()) {
        return OptionalLong.empty();
      }
      return OptionalLong.of(Math.round(kvUsage.getAsDouble() * numGpuBlocks.getAsLong()));
    }
  }

  /**
   * The engines a scrape reports, by {@code engine} label (0 when the series has none, as older
   * vLLM writes it).
   */
  public static Map<Integer, Engine> parse(String exposition) {
    Map<Integer, Engine> engines = new LinkedHashMap<>();
    for (PrometheusSamples.Sample sample : PrometheusSamples.parse(exposition, PREFIX)) {
      Map<String, String> labels = sample.labels();
      double value = sample.value();
      int engine = intLabel(labels.get("engine")).orElse(0);
      Engine was = engines.getOrDefault(engine, Engine.EMPTY);
      Engine now =
          switch (sample.name()) {
            case "vllm:num_requests_running" -> was.withRunning((long) value);
            case "vllm:num_requests_waiting" -> was.withWaiting((long) value);
            case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc" -> was.withKvUsage(value);
            case "vllm:cache_config_info" ->
                was.withShape(
                    intLabel(labels.get("block_size")), longLabel(labels.get("num_gpu_blocks")));
            default -> null;
          };
      if (now != null) {
        engines.put(engine, now);
      }
    }
    return engines;
  }

  /** A label's integer value; empty for none or {@code "None"} (before profiling). */
  public static OptionalInt intLabel(String value) {
    try {
      return value == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(value));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }

  /** A label's long value; empty for none or {@code "None"}. */
  public static OptionalLong longLabel(String value) {
    try {
      return value == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(value));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  /** One engine's figures, as the simulated worker reports them. */
  public record Figures(
      int engine, long running, long waiting, double kvUsage, long numGpuBlocks) {}

  /** The families as vLLM writes them, one series per engine, for the simulated worker. */
  public static String write(String model, int blockSize, java.util.List<Figures> engines) {
    StringBuilder out = new StringBuilder();
    family(out, "vllm:num_requests_running", model, engines, f -> (double) f.running());
    family(out, "vllm:num_requests_waiting", model, engines, f -> (double) f.waiting());
    family(out, "vllm:kv_cache_usage_perc", model, engines, Figures::kvUsage);
    out.append("# TYPE vllm:cache_config_info gauge\n");
    for (Figures f : engines) {
      out.append("vllm:cache_config_info{block_size=\"")
          .append(blockSize)
          .append("\",cache_dtype=\"auto\",enable_prefix_caching=\"True\",engine=\"")
          .append(f.engine())
          .append("\",num_gpu_blocks=\"")
          .append(f.numGpuBlocks())
          .append("\",sliding_window=\"None\"} 1.0\n");
    }
    return out.toString();
  }

  private static void family(
      StringBuilder out,
      String name,
      String model,
      java.util.List<Figures> engines,
      java.util.function.ToDoubleFunction<Figures> value) {
    out.append("# TYPE ").append(name).append(" gauge\n");
    for (Figures f : engines) {
      out.append(name)
          .append("{engine=\"")
          .append(f.engine())
          .append("\",model_name=\"")
          .append(escape(model))
          .append("\"} ")
          .append(value.applyAsDouble(f))
          .append('\n');
    }
  }

  private static String escape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
  }
}
