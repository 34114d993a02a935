package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.protocol.dynamo.DynamoEventFormatException;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.testing.FakeRequestPlane;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class RequestPlaneRecoveryTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final FakeRequestPlane plane = new FakeRequestPlane();
  private final List<WorkerKvQueryCodec.Query> asked = new CopyOnWriteArrayList<>();
  private final RequestPlaneRecovery recovery =
      new RequestPlaneRecovery(
          plane, Map.of("7", new WorkerEndpoint("7", "10.0.0.5", 9999, "abc123/generate")));

  @Test
  void asksTheRanksEndpointBesideTheWorkersGenerateEndpoint() {
    plane.answer(
        "abc123/worker_kv_indexer_query_dp2",
        question -> {
          asked.add(WorkerKvQueryCodec.decodeQuery(question));
          return List.of(
              json(
                  "{\"TooNew\":{\"requested_start\":5,\"requested_end\":null,"
                      + "\"newest_available\":4}}"));
        });

    assertThat(recovery.query(new WorkerRank("7", 2), null, 5L, null))
        .succeedsWithin(WAIT)
        .isEqualTo(new WorkerKvQueryResult.TooNew(5, null, 4));
    assertThat(asked).containsExactly(new WorkerKvQueryCodec.Query(7, 2, 5L, null));
    assertThat(plane.asks).containsExactly("7/abc123/worker_kv_indexer_query_dp2");
  }

  @Test
  void asksThePublishersEndpoint_whenAnEnvelopeNamedIt() {
    plane.answer(
        "abc123/worker_kv_query_source_1fffffffffffff",
        question -> {
          asked.add(WorkerKvQueryCodec.decodeQuery(question));
          return List.of(json("{\"Error\":\"busy\"}"));
        });

    assertThat(recovery.query(new WorkerRank("7", 1), (1L << 53) - 1, 3L, 9L))
        .succeedsWithin(WAIT)
        .isEqualTo(new WorkerKvQueryResult.Error("busy"));
    assertThat(asked).containsExactly(new WorkerKvQueryCodec.Query(7, 1, 3L, 9L));
    assertThat(plane.asks).containsExactly("7/abc123/worker_kv_query_source_1fffffffffffff");
  }

  @Test
  void thePublisherDiscoveryNames_comesBeforeOneFromTheFollower() {
    // a restarted worker's new publisher, while the follower still has the snapshot's old one
    DiscoveredPublishers publishers = new DiscoveredPublishers();
    publishers.set("7", true, java.util.OptionalLong.of(0xbeefL));
    RequestPlaneRecovery discovered =
        new RequestPlaneRecovery(
            plane,
            Map.of("7", new WorkerEndpoint("7", "10.0.0.5", 9999, "abc123/generate")),
            publishers);
    plane.answer(
        "abc123/worker_kv_query_source_beef", question -> List.of(json("{\"Error\":\"new\"}")));

    assertThat(discovered.query(new WorkerRank("7", 0), 0xabcL, 3L, null))
        .succeedsWithin(WAIT)
        .isEqualTo(new WorkerKvQueryResult.Error("new"));
    assertThat(plane.asks).containsExactly("7/abc123/worker_kv_query_source_beef");
  }

  @Test
  void aWorkerThatRefusesThePublishersEndpoint_isAskedAtTheRanks() {
    // releases before v1.5 put their instance id in the envelopes and serve the rank's endpoint
    plane.answer(
        "abc123/worker_kv_indexer_query_dp0", question -> List.of(json("{\"Error\":\"old\"}")));

    assertThat(recovery.query(new WorkerRank("7", 0), 0xabcL, null, null))
        .succeedsWithin(WAIT)
        .isEqualTo(new WorkerKvQueryResult.Error("old"));
    assertThat(plane.asks)
        .containsExactly(
            "7/abc123/worker_kv_query_source_abc", "7/abc123/worker_kv_indexer_query_dp0");
  }

  @Test
  void anAnswerOfOtherThanOneItemIsAFormatError() {
    plane.answer(
        "abc123/worker_kv_indexer_query_dp0",
        question -> List.of(json("{\"Error\":\"a\"}"), json("{\"Error\":\"b\"}")));

    assertThat(recovery.query(new WorkerRank("7", 0), null, null, null))
        .failsWithin(WAIT)
        .withThrowableOfType(Exception.class)
        .withRootCauseInstanceOf(DynamoEventFormatException.class)
        .withMessageContaining("one stream item, got 2");
  }

  @Test
  void aWorkerWithoutTheEndpointOrAnAddressFails() {
    assertThat(recovery.query(new WorkerRank("7", 0), null, null, null))
        .failsWithin(WAIT)
        .withThrowableOfType(Exception.class)
        .withRootCauseInstanceOf(WorkerUnavailableException.class);
    assertThat(recovery.query(new WorkerRank("8", 0), null, null, null))
        .failsWithin(WAIT)
        .withThrowableOfType(Exception.class)
        .withMessageContaining("no request-plane address for worker 8");
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
