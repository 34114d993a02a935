package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConsoleTableTest {
  private static PolicyRun run(String policy, Double hitRate) {
    return new PolicyRun(
        policy,
        40,
        hitRate,
        new Latency(12.34, 10, 20, 25.25),
        new Latency(2, 2, 3, 3.4),
        new Latency(123.4, 100, 150, 180.2),
        510.25,
        7,
        new double[0],
        null);
  }

  @Test
  void oneRowPerPolicy_underGroupedHeaders() {
    String[] lines =
        ConsoleTable.render(List.of(run("kv", 0.6125), run("round-robin", null))).split("\n");

    assertThat(lines).hasSize(4);
    assertThat(lines[0]).contains("TTFT (ms)").contains("ITL (ms)").contains("E2E (ms)");
    assertThat(lines[1])
        .startsWith("policy")
        .contains("hit rate")
        .contains("out tok/s")
        .endsWith("max queue");
    assertThat(lines[2].split("\\s+"))
        .containsExactly(
            "kv", "40", "61.3%", "12.3", "10.0", "20.0", "25.3", "2.0", "3.4", "123.4", "180.2",
            "510.3", "7");
    assertThat(lines[3]).startsWith("round-robin").contains(" - ");
    assertThat(lines[0].indexOf("TTFT")).isEqualTo(lines[1].indexOf("mean"));
  }
}
