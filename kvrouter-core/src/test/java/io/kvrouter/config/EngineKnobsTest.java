package io.kvrouter.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EngineKnobsTest {
  @Test
  void everyKnob_isTheWorkersOption_withMockInFront_forTheRouter() {
    List<Setting<?>> worker = EngineKnobs.WORKER.all();
    List<Setting<?>> mock = EngineKnobs.MOCK.all();
    assertThat(mock).hasSameSizeAs(worker);
    for (int i = 0; i < worker.size(); i++) {
      Setting<?> knob = worker.get(i);
      assertThat(mock.get(i))
          .usingRecursiveComparison()
          .ignoringFields("name", "description", "aliases")
          .isEqualTo(knob);
      assertThat(mock.get(i).name()).isEqualTo("mock-" + knob.name());
    }
    assertThat(Settings.ALL).containsAll(mock);
    assertThat(WorkerSettings.ALL).containsAll(worker);
  }

  @Test
  void routerHelp_namesTheRoutersOptions() {
    assertThat(EngineKnobs.WORKER.ttftMs().description()).contains("With --timing-model fixed");
    assertThat(EngineKnobs.MOCK.ttftMs().description())
        .contains("With --mock-timing-model fixed")
        .doesNotContain(" --timing-model");
    assertThat(EngineKnobs.MOCK.timingModel().description())
        .contains("(--mock-ttft-ms, then --mock-itl-ms per token")
        .contains("when --mock-speedup-ratio is given");
  }

  @Test
  void routersEarlierNameForTheKvCapacity_isStillAccepted() {
    assertThat(EngineKnobs.MOCK.numGpuBlocks().aliases()).containsExactly("mock-kv-blocks");
    assertThat(EngineKnobs.WORKER.numGpuBlocks().aliases()).isEmpty();
  }

  @Test
  void sameValues_describeTheSameEngine_forMockWorkersAndAWorker() {
    Map<String, String> knobs =
        Map.of(
            "timing-model", "mocker",
            "speedup-ratio", "4",
            "max-num-seqs", "8",
            "max-num-batched-tokens", "512",
            "watermark", "0.05",
            "num-gpu-blocks", "64",
            "ttft-ms", "5",
            "itl-ms", "2");
    Map<String, List<String>> router = new HashMap<>();
    router.put("mock-workers", List.of("1"));
    router.put("kv-cache-block-size", List.of("32"));
    Map<String, List<String>> worker = new HashMap<>();
    worker.put("port", List.of("0"));
    worker.put("model-name", List.of("m"));
    worker.put("kv-cache-block-size", List.of("32"));
    knobs.forEach(
        (name, value) -> {
          router.put("mock-" + name, List.of(value));
          worker.put(name, List.of(value));
        });

    SimulatedEngineConfig mock = ConfigLoader.load(router, Map.of(), null).mockWorkers().engine();
    SimulatedEngineConfig own = WorkerConfigLoader.load(worker, Map.of(), null).engine();

    assertThat(mock).isEqualTo(own);
    assertThat(own.numGpuBlocks()).isEqualTo(64);
    assertThat(own.blockSize()).isEqualTo(32);
    assertThat(own.watermark()).isEqualTo(0.05);
  }
}
