package io.kvrouter.worker;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.EngineTiming;
import io.kvrouter.config.SimulatedEngineConfig;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.engine.TimingModel;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds simulated engines: the one factory of {@code router.jar worker} and the router's {@code
 * --mock-workers}, so both run the same engine for the same settings.
 */
public final class SimulatedEngines {
  private SimulatedEngines() {}

  /**
   * A worker's engine: {@code config.dataParallelSize()} ranks, each a {@link SimulatedEngine} with
   * its own KV cache and its meters tagged {@code tags} and {@code dp_rank}, paced by fixed delays
   * or by the mocker timing model.
   *
   * @param vocabulary the token ids output is drawn from
   * @param ticker the clock the engines read ({@link Ticker#SYSTEM}: their timers are Vert.x's)
   */
  public static DataParallelEngine create(
      Vertx vertx,
      SimulatedEngineConfig config,
      int[] vocabulary,
      MeterRegistry registry,
      Tags tags,
      Ticker ticker) {
    SimulatedEngine.Options options = options(config, vocabulary);
    List<SimulatedEngine> ranks = new ArrayList<>(config.dataParallelSize());
    for (int dp = 0; dp < config.dataParallelSize(); dp++) {
      ranks.add(
          new SimulatedEngine(
              vertx, options, registry, tags.and("dp_rank", String.valueOf(dp)), ticker));
    }
    return new DataParallelEngine(ranks);
  }

  /** What each rank of {@code config} runs with. */
  private static SimulatedEngine.Options options(SimulatedEngineConfig config, int[] vocabulary) {
    return new SimulatedEngine.Options(
        vocabulary,
        config.timeToFirstToken(),
        config.interTokenLatency(),
        config.blockSize(),
        config.numGpuBlocks(),
        config.timing() == EngineTiming.MOCKER
            ? new EngineSettings(
                config.blockSize(),
                config.numGpuBlocks(),
                config.maxNumSeqs(),
                config.maxNumBatchedTokens(),
                config.watermark(),
                new TimingModel(config.speedupRatio()))
            : null);
  }
}
