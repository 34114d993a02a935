package io.kvrouter.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.EngineTiming;
import io.kvrouter.config.SimulatedEngineConfig;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.TimingModel;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One settings record, one engine: the pace, the ranks and the KV cache it asks for. */
class SimulatedEnginesTest {
  private final Vertx vertx = Vertx.vertx();
  private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

  @AfterEach
  void close() {
    vertx.close();
  }

  private static SimulatedEngineConfig config(EngineTiming timing, int ranks) {
    return new SimulatedEngineConfig(
        timing, Duration.ofMillis(5), Duration.ofMillis(2), 4, 8, 512, 0.05, 32, 64, ranks);
  }

  private SimulatedEngine.Options optionsOfOneRank(EngineTiming timing) {
    DataParallelEngine engine =
        SimulatedEngines.create(
            vertx, config(timing, 1), Vocabularies.demo(), meters, Tags.empty(), Ticker.SYSTEM);
    assertThat(engine.ranks()).hasSize(1);
    return engine.ranks().get(0).options();
  }

  @Test
  void mockerTiming_getsTheSimulatorsScheduler_withTheGivenLimits() {
    SimulatedEngine.Options options = optionsOfOneRank(EngineTiming.MOCKER);
    assertThat(options.scheduler())
        .isEqualTo(new EngineSettings(32, 64, 8, 512, 0.05, new TimingModel(4)));
    assertThat(options.blockSize()).isEqualTo(32);
    assertThat(options.kvBlocks()).isEqualTo(64);
  }

  @Test
  void fixedTiming_usesTheDelays_withoutScheduler() {
    SimulatedEngine.Options options = optionsOfOneRank(EngineTiming.FIXED);
    assertThat(options.scheduler()).isNull();
    assertThat(options.timeToFirstToken()).isEqualTo(Duration.ofMillis(5));
    assertThat(options.interTokenLatency()).isEqualTo(Duration.ofMillis(2));
  }

  @Test
  void eachDataParallelRank_hasItsOwnCache_andMeters() {
    DataParallelEngine engine =
        SimulatedEngines.create(
            vertx,
            config(EngineTiming.FIXED, 3),
            Vocabularies.demo(),
            meters,
            Tags.of("model", "m"),
            Ticker.SYSTEM);

    assertThat(engine.ranks()).hasSize(3);
    assertThat(engine.ranks().get(0).kvCache()).isNotSameAs(engine.ranks().get(1).kvCache());
    assertThat(engine.ranks().get(2).kvCache().snapshot().capacity()).isEqualTo(64);
    assertThat(meters.find(MetricNames.COMPONENT_REQUESTS).tag("model", "m").counters())
        .extracting(counter -> counter.getId().getTag("dp_rank"))
        .containsExactlyInAnyOrder("0", "1", "2");
  }
}
