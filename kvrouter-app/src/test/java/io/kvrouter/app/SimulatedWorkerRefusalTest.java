package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.PreprocessedRequest.StopConditions;
import io.kvrouter.protocol.ResponseStream;
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
 * plane, and the router tells the two refusals apart: a prompt larger than the whole cache can
 * never fit (the request's fault), one that finds the cache full right now may fit later (another
 * worker, or a retry). Neither is a worker fault.
 */
class SimulatedWorkerRefusalTest {
  private final Vertx vertx = Vertx.vertx();
  private WorkerServer server;
  private RequestPlane plane;
  private WorkerEndpoint worker;

  @AfterEach
  void close() throws Exception {
    if (plane != null) {
      await(plane.close());
      await(server.close());
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** A worker with a cache of two blocks of four tokens, at once or pausing 10 s per token. */
  private void startWorker(Duration interTokenLatency) throws Exception {
    SimulatedEngine engine =
        new SimulatedEngine(
            vertx,
            new SimulatedEngine.Options(
                Vocabularies.demo(), Duration.ZERO, interTokenLatency, 4, 2),
            new SimpleMeterRegistry(),
            Tags.of("model", "m"),
            Ticker.SYSTEM);
    TcpConfig tcp = TcpConfig.defaults("127.0.0.1");
    server =
        await(
            TcpTransport.server(
                vertx, "127.0.0.1", 0, Map.of(WorkerEndpoint.DEFAULT_PATH, engine), tcp));
    plane = TcpTransport.client(vertx, tcp);
    await(plane.start());
    worker = new WorkerEndpoint("w1", "127.0.0.1", server.port(), WorkerEndpoint.DEFAULT_PATH);
  }

  private static PreprocessedRequest prompt(int from, int tokens) {
    return new PreprocessedRequest(
        "m",
        IntStream.range(from, from + tokens).toArray(),
        new StopConditions(100, null, null, null, null),
        null,
        null,
        null,
        null);
  }

  private WorkerUnavailableException refusal(String requestId, PreprocessedRequest request)
      throws Exception {
    try {
      await(plane.send(worker, requestId, request));
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(WorkerUnavailableException.class);
      return (WorkerUnavailableException) e.getCause();
    }
    throw new AssertionError("the worker took " + requestId);
  }

  @Test
  void promptLargerThanTheWholeCache_isRefusedAsNeverFitting() throws Exception {
    startWorker(Duration.ZERO);

    WorkerUnavailableException refused = refusal("r1", prompt(0, 12));

    assertThat(refused.neverFits()).isTrue();
    assertThat(refused.workerFault()).isFalse();
    assertThat(refused.reason()).isEqualTo("it needs 12 tokens of KV cache, the worker holds 8");
  }

  @Test
  void promptThatFindsTheCacheFull_isRefusedAsPassing() throws Exception {
    startWorker(Duration.ofSeconds(10));
    // holds both blocks while it streams its 100 tokens, 10 s apart
    ResponseStream running = await(plane.send(worker, "r1", prompt(0, 8)));

    WorkerUnavailableException refused = refusal("r2", prompt(50, 8));

    assertThat(refused.neverFits()).isFalse();
    assertThat(refused.workerFault()).isFalse();
    assertThat(refused.reason()).contains("KV cache full: 2 blocks needed, 0 free");
    running.cancel();
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
