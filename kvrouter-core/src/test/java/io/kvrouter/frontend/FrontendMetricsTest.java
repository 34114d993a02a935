package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.metrics.MetricNames;
import io.kvrouter.metrics.Metrics;
import io.kvrouter.testing.ManualTicker;
import io.micrometer.core.instrument.DistributionSummary;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A request's latencies are measured on the {@link io.kvrouter.common.Ticker} the metrics read. */
class FrontendMetricsTest {
  private final ManualTicker clock = new ManualTicker();
  private final Metrics metrics = new Metrics();
  private final FrontendMetrics frontend = new FrontendMetrics(metrics, "m", 16, clock);

  private DistributionSummary histogram(String name) {
    return metrics.registry().get(name).summary();
  }

  @Test
  void timeToFirstToken_interTokenLatency_andDuration_comeFromTheTicker() {
    FrontendMetrics.RequestTracker request = frontend.start("completions", true);
    clock.advance(Duration.ofMillis(250));
    request.tokens(1);
    clock.advance(Duration.ofMillis(100));
    request.tokens(2);
    request.finish(true);

    assertThat(histogram(MetricNames.TIME_TO_FIRST_TOKEN).totalAmount())
        .isCloseTo(0.25, within(1e-9));
    assertThat(histogram(MetricNames.INTER_TOKEN_LATENCY).totalAmount())
        .as("100 ms for two tokens")
        .isCloseTo(0.05, within(1e-9));
    assertThat(histogram(MetricNames.REQUEST_DURATION).totalAmount()).isCloseTo(0.35, within(1e-9));
  }
}
