package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.tcp.TcpTransport;
import io.kvrouter.transport.tcp.WorkerServer;
import io.kvrouter.worker.SimulatedEngine;
import io.kvrouter.worker.Vocabularies;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A simulated worker whose KV cache cannot hold a prompt refuses it over the real TCP request
 * plane: the router sees a refusal (may try another worker, keeps this one in rotation), not a
 * worker fault.
 */
class SimulatedWorkerRefusalTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void promptLargerThanTheCache_isRefused_notAWorkerFault() throws Exception {
    SimulatedEngine engine =
        new SimulatedEngine(
            vertx,
            new SimulatedEngine.Options(Vocabularies.demo(), Duration.ZERO, Duration.ZERO, 4, 2),
            new SimpleMeterRegistry(),
            Tags.of("model", "m"),
            Ticker.SYSTEM);
    TcpConfig tcp = TcpConfig.defaults("127.0.0.1");
    WorkerServer server =
        await(
            TcpTransport.server(
                vertx, "127.0.0.1", 0, Map.of(WorkerEndpoint.DEFAULT_PATH, engine), tcp));
    RequestPlane plane = TcpTransport.client(vertx, tcp);
    await(plane.start());
    WorkerEndpoint worker =
        new WorkerEndpoint("w1", "127.0.0.1", server.port(), WorkerEndpoint.DEFAULT_PATH);
    PreprocessedRequest request =
        new PreprocessedRequest(
            "m",
            IntStream.range(0, 12).toArray(),
            new StopConditions(1, null, null, null, null),
            null,
            null,
            null,
            null);

    Throwable failure;
    try {
      await(plane.send(worker, "r1", request));
      failure = null;
    } catch (ExecutionException e) {
      failure = e.getCause();
    }

    assertThat(failure)
        .isInstanceOf(WorkerUnavailableException.class)
        .hasMessageContaining("KV cache full: 3 blocks needed, 2 free");
    assertThat(((WorkerUnavailableException) failure).workerFault()).isFalse();
    await(plane.close());
    await(server.close());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
