package io.kvrouter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Two served models' meters of one name are two series, and a removed model's go. */
class ModelMetersTest {
  @Test
  void twoModelsMetersOfOneName_areTwoSeries_andClosingOneRemovesItsOwn() {
    Metrics metrics = new Metrics();
    ModelMeters alpha = metrics.forModel("alpha");
    ModelMeters beta = metrics.forModel("beta");
    AtomicLong alphaEvents = new AtomicLong(3);
    AtomicLong betaEvents = new AtomicLong(5);
    for (var entry : java.util.Map.of(alpha, alphaEvents, beta, betaEvents).entrySet()) {
      FunctionCounter.builder("kvrouter_test_events", entry.getValue(), AtomicLong::get)
          .tag("status", "ok")
          .register(entry.getKey().registry());
      Gauge.builder("kvrouter_test_pending", entry.getValue(), AtomicLong::get)
          .register(entry.getKey().registry());
    }

    String scrape = metrics.scrape();
    assertThat(scrape)
        .contains("kvrouter_test_events_total{model=\"alpha\",status=\"ok\"} 3.0")
        .contains("kvrouter_test_events_total{model=\"beta\",status=\"ok\"} 5.0")
        .contains("kvrouter_test_pending{model=\"alpha\"} 3.0")
        .contains("kvrouter_test_pending{model=\"beta\"} 5.0");

    alpha.close();
    scrape = metrics.scrape();
    assertThat(scrape).doesNotContain("model=\"alpha\"");
    assertThat(scrape).contains("kvrouter_test_pending{model=\"beta\"} 5.0");

    // the model comes back: its meters count again, from its new parts
    ModelMeters again = metrics.forModel("alpha");
    Gauge.builder("kvrouter_test_pending", () -> 7).register(again.registry());
    assertThat(metrics.scrape()).contains("kvrouter_test_pending{model=\"alpha\"} 7.0");
  }
}
