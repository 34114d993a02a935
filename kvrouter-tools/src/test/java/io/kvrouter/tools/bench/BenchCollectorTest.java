package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.tools.report.PolicyRun;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchCollectorTest {
  private static final long S = 1_000_000_000L;
  private final List<Integer> finished = new ArrayList<>();
  private final BenchCollector collector = new BenchCollector(finished::add);

  private static RequestClock.Timing timing(double ttft, double e2e, int tokens, double... itl) {
    return new RequestClock.Timing(ttft, e2e, itl, tokens);
  }

  @Test
  void policyRun_summarisesCompletedRequests() {
    collector.sent(10 * S, 0);
    collector.sent(11 * S, 2_000_000);
    collector.completed(1, timing(20, 100, 5, 10, 20), 12 * S);
    collector.sent(13 * S, 0);
    collector.completed(0, timing(40, 300, 15, 30), 14 * S);
    collector.completed(2, timing(60, 200, 20), 15 * S);

    PolicyRun run = collector.policyRun("kv", 0.5, null);

    assertThat(run.policy()).isEqualTo("kv");
    assertThat(run.requests()).isEqualTo(3);
    assertThat(run.hitRate()).isEqualTo(0.5);
    assertThat(run.ttftMs().mean()).isCloseTo(40, within(1e-9));
    assertThat(run.ttftSamplesMs()).containsExactlyInAnyOrder(20, 40, 60);
    assertThat(run.itlMs().mean()).isCloseTo(20, within(1e-9));
    assertThat(run.e2eMs().p99()).isEqualTo(300);
    // 40 tokens from the first send (10 s) to the last completion (15 s)
    assertThat(run.outputTokensPerS()).isCloseTo(8, within(1e-9));
    assertThat(run.maxQueue()).isEqualTo(2);
    assertThat(collector.maxLagMs()).isCloseTo(2, within(1e-9));
    assertThat(collector.results()).extracting(RequestResult::index).containsExactly(0, 1, 2);
    assertThat(finished).containsExactly(1, 2, 3);
  }

  @Test
  void failures_areCountedAndTheFirstFewKeptWithTheirRequest() {
    for (int i = 0; i < 8; i++) {
      collector.sent(S, 0);
    }
    for (int i = 0; i < 7; i++) {
      collector.failed(i, "HTTP 503: busy " + i);
    }
    collector.completed(7, timing(1, 2, 1), 2 * S);

    assertThat(collector.failedCount()).isEqualTo(7);
    assertThat(collector.errors())
        .hasSize(BenchCollector.ERRORS_KEPT)
        .startsWith("request #0: HTTP 503: busy 0");
    assertThat(collector.policyRun("live", null, null).requests()).isEqualTo(1);
    assertThat(finished).hasSize(8).endsWith(8);
  }

  @Test
  void withNothingCompleted_theRunIsEmptyNotAnError() {
    collector.sent(S, 0);
    collector.failed(0, "refused");
    PolicyRun run = collector.policyRun("live", null, null);
    assertThat(run.requests()).isZero();
    assertThat(run.outputTokensPerS()).isZero();
    assertThat(run.maxQueue()).isEqualTo(1);
  }
}
