package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.WorkerSpec;
import io.kvrouter.config.WorkerSpec.KvEventSource;
import io.kvrouter.protocol.WorkerRank;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventPlaneTest {

  @Test
  void everyRankOfADataParallelWorker_isFollowedOnTheBasePortsPlusItsRank() {
    Map<WorkerRank, KvEventSource> sources = new LinkedHashMap<>();
    List.of(
            WorkerSpec.parse(
                "id=w1,address=10.0.0.5:9000,dp-size=3,kv-events=tcp://10.0.0.5:5557,"
                    + "kv-replay=tcp://10.0.0.5:6557"),
            WorkerSpec.parse("id=w2,address=10.0.0.6:9000,kv-events=tcp://10.0.0.6:5557"),
            WorkerSpec.parse("id=w3,address=10.0.0.7:9000,dp-size=2"),
            WorkerSpec.parse(
                "id=w4,address=10.0.0.8:9000,kv-events=tcp://10.0.0.8:5557,events-format=dynamo"))
        .forEach(worker -> sources.putAll(KvEventSubscriptions.rankSources(worker)));

    assertThat(sources)
        .containsExactly(
            Map.entry(
                new WorkerRank("w1", 0),
                new KvEventSource("tcp://10.0.0.5:5557", "tcp://10.0.0.5:6557")),
            Map.entry(
                new WorkerRank("w1", 1),
                new KvEventSource("tcp://10.0.0.5:5558", "tcp://10.0.0.5:6558")),
            Map.entry(
                new WorkerRank("w1", 2),
                new KvEventSource("tcp://10.0.0.5:5559", "tcp://10.0.0.5:6559")),
            Map.entry(new WorkerRank("w2", 0), new KvEventSource("tcp://10.0.0.6:5557", null)));
  }
}
