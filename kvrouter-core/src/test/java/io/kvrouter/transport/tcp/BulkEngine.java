package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Vertx;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * An engine that emits all its outputs in one event-loop task, {@code tokensEach} tokens apiece
 * (about 6 bytes of JSON a token), and ignores pause: what it emits waits at the worker for the
 * transport to take it. For flow-control tests.
 */
final class BulkEngine implements InferenceEngine {
  private final Vertx vertx;
  private final int outputs;
  private final int tokensEach;

  /** Completes once every output was handed to the worker. */
  final CompletableFuture<Void> emitted = new CompletableFuture<>();

  BulkEngine(Vertx vertx, int outputs, int tokensEach) {
    this.vertx = vertx;
    this.outputs = outputs;
    this.tokensEach = tokensEach;
  }

  @Override
  public ResponseStream generate(String requestId, PreprocessedRequest request) {
    return new ResponseStream() {
      @Override
      public void subscribe(Subscriber s) {
        vertx.setTimer(
            1,
            id -> {
              int[] tokens = new int[tokensEach];
              Arrays.fill(tokens, 12_345);
              for (int i = 0; i < outputs; i++) {
                s.onOutput(EngineOutput.tokens(tokens));
              }
              s.onComplete();
              emitted.complete(null);
            });
      }

      @Override
      public void pause() {}

      @Override
      public void resume() {}

      @Override
      public void cancel() {}
    };
  }
}
