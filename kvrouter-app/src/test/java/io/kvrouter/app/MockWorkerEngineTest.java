package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.WorkerConfig;
import io.kvrouter.config.WorkerConfigLoader;
import io.kvrouter.config.WorkerSettings;
import io.kvrouter.preprocess.ModelAssets;
import io.kvrouter.testing.BlockedEventLoopDetector;
import io.kvrouter.worker.DataParallelEngine;
import io.kvrouter.worker.SimulatedEngines;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * A router's {@code --mock-workers} and a {@code router.jar worker} given the same engine options
 * run the same engine, built by the one factory.
 */
class MockWorkerEngineTest {
  @Test
  void sameEngineOptions_buildEquivalentEngines() throws Exception {
    RouterApplication router =
        RouterApplication.start(
                ConfigLoader.load(
                    Cli.flags(
                        new CommandLine(Cli.routerSpec())
                            .parseArgs(
                                "--http-host",
                                "127.0.0.1",
                                "--http-port",
                                "0",
                                "--mock-workers",
                                "1",
                                "--kv-cache-block-size",
                                "32",
                                "--mock-speedup-ratio",
                                "4",
                                "--mock-watermark",
                                "0.05",
                                "--mock-num-gpu-blocks",
                                "64")),
                    Map.of(),
                    null),
                BlockedEventLoopDetector.strictOptions())
            .toCompletionStage()
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    try {
      ParseResult parsed =
          new CommandLine(new WorkerCommand().spec())
              .parseArgs(
                  "--port",
                  "0",
                  "--model-name",
                  "m",
                  "--block-size",
                  "32",
                  "--speedup-ratio",
                  "4",
                  "--watermark",
                  "0.05",
                  "--num-gpu-blocks",
                  "64");
      WorkerConfig worker =
          WorkerConfigLoader.load(SettingOptions.flags(parsed, WorkerSettings.ALL), Map.of(), null);

      DataParallelEngine own =
          SimulatedEngines.create(
              router.vertx(),
              worker.engine(),
              WorkerVocabulary.of(ModelAssets.demo()),
              new SimpleMeterRegistry(),
              Tags.empty(),
              Ticker.SYSTEM);

      assertThat(own.ranks()).hasSize(1);
      assertThat(own.ranks().get(0).options())
          .usingRecursiveComparison()
          .isEqualTo(router.mockEngines().get(0).options());
      assertThat(own.ranks().get(0).options().scheduler()).isNotNull();
    } finally {
      router.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
