package io.kvrouter.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Requests reach the rank the router chose, each rank caching in its own KV cache. */
class DataParallelEngineTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  private List<SimulatedEngine> ranks(int n) {
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    return IntStream.range(0, n)
        .mapToObj(
            dp ->
                new SimulatedEngine(
                    vertx,
                    new SimulatedEngine.Options(
                        Vocabularies.demo(), Duration.ofHours(1), Duration.ZERO, 4, 64),
                    meters,
                    Tags.of("dp_rank", String.valueOf(dp)),
                    Ticker.SYSTEM))
        .toList();
  }

  private static PreprocessedRequest request(int first) {
    return new PreprocessedRequest(
        "m", IntStream.range(first, first + 8).toArray(), null, null, null, null, null);
  }

  @Test
  void theRouterChosenRank_servesTheRequest_inItsOwnCache() {
    List<SimulatedEngine> ranks = ranks(3);
    DataParallelEngine engine = new DataParallelEngine(ranks);

    ResponseStream stream = engine.generate("a", request(0).withDpRank(2));

    assertThat(ranks.get(2).kvCache().activeBlocks()).isEqualTo(2);
    assertThat(ranks.get(0).kvCache().activeBlocks()).isZero();
    assertThat(ranks.get(1).kvCache().activeBlocks()).isZero();
    stream.cancel();
  }

  @Test
  void withoutARank_theLeastBusyRankServes() {
    List<SimulatedEngine> ranks = ranks(2);
    DataParallelEngine engine = new DataParallelEngine(ranks);
    ResponseStream first = engine.generate("a", request(0));
    ResponseStream second = engine.generate("b", request(100));

    assertThat(ranks).allSatisfy(r -> assertThat(r.kvCache().activeBlocks()).isEqualTo(2));
    first.cancel();
    second.cancel();
  }

  @Test
  void aRankTheWorkerDoesNotHave_isRefused() {
    DataParallelEngine engine = new DataParallelEngine(ranks(2));
    assertThatThrownBy(() -> engine.generate("a", request(0).withDpRank(2)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("routing.dp_rank 2 is not a rank of this worker (it has 2)");
  }
}
