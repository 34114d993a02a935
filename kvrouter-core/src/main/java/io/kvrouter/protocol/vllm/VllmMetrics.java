package io.kvrouter.protocol.vllm;

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

    static final Engine EMPTY =
        new Engine(
            OptionalLong.empty(),
            OptionalLong.empty(),
            java.util.OptionalDouble.empty(),
            OptionalInt.empty(),
            OptionalLong.empty());

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
    for (String raw : exposition.split("\n")) {
      String line = raw.strip();
      if (!line.startsWith(PREFIX)) {
        continue; // comments, other families
      }
      int brace = line.indexOf('{');
      int space = line.lastIndexOf(' ');
      if (space < 0) {
        continue;
      }
      String name =
          brace >= 0 && brace < space ? line.substring(0, brace) : line.substring(0, space);
      Map<String, String> labels =
          brace >= 0 && brace < space
              ? labels(line.substring(brace + 1, line.lastIndexOf('}', space)))
              : Map.of();
      double value;
      try {
        value = Double.parseDouble(line.substring(space + 1));
      } catch (NumberFormatException e) {
        continue;
      }
      int engine = intLabel(labels.get("engine")).orElse(0);
      Engine was = engines.getOrDefault(engine, Engine.EMPTY);
      Engine now =
          switch (name) {
            case "vllm:num_requests_running" ->
                new Engine(
                    OptionalLong.of((long) value),
                    was.waiting(),
                    was.kvUsage(),
                    was.blockSize(),
                    was.numGpuBlocks());
            case "vllm:num_requests_waiting" ->
                new Engine(
                    was.running(),
                    OptionalLong.of((long) value),
                    was.kvUsage(),
                    was.blockSize(),
                    was.numGpuBlocks());
            case "vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc" ->
                new Engine(
                    was.running(),
                    was.waiting(),
                    java.util.OptionalDouble.of(value),
                    was.blockSize(),
                    was.numGpuBlocks());
            case "vllm:cache_config_info" ->
                new Engine(
                    was.running(),
                    was.waiting(),
                    was.kvUsage(),
                    intLabel(labels.get("block_size")),
                    longLabel(labels.get("num_gpu_blocks")));
            default -> null;
          };
      if (now != null) {
        engines.put(engine, now);
      }
    }
    return engines;
  }

  /** {@code a="x",b="y"}, with Prometheus' escapes ({@code \\}, {@code \"}, {@code \n}). */
  static Map<String, String> labels(String text) {
    Map<String, String> labels = new LinkedHashMap<>();
    int i = 0;
    while (i < text.length()) {
      int eq = text.indexOf('=', i);
      if (eq < 0 || eq + 1 >= text.length() || text.charAt(eq + 1) != '"') {
        break;
      }
      String key = text.substring(i, eq).strip();
      StringBuilder value = new StringBuilder();
      int j = eq + 2;
      for (; j < text.length() && text.charAt(j) != '"'; j++) {
        char c = text.charAt(j);
        if (c == '\\' && j + 1 < text.length()) {
          char next = text.charAt(++j);
          value.append(next == 'n' ? '\n' : next);
        } else {
          value.append(c);
        }
      }
      labels.put(key, value.toString());
      i = j + 1;
      while (i < text.length() && (text.charAt(i) == ',' || text.charAt(i) == ' ')) {
        i++;
      }
    }
    return labels;
  }

  private static OptionalInt intLabel(String value) {
    try {
      return value == null ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(value));
    } catch (NumberFormatException e) {
      return OptionalInt.empty(); // "None" before profiling
    }
  }

  private static OptionalLong longLabel(String value) {
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
