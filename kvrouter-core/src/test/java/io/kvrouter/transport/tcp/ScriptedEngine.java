package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A real {@link InferenceEngine} for the tests: for a request whose first token is {@code t} it
 * emits {@code t*1000 + 0 .. t*1000 + n-1}, one token per output on Vert.x timers, the last with
 * finish reason {@code length}. It can fail before or after its first output, and it records
 * cancellation.
 */
final class ScriptedEngine implements InferenceEngine {

  enum Failure {
    NONE,
    /** generate() itself throws: the engine refuses the request. */
    ON_GENERATE,
    BEFORE_FIRST_OUTPUT,
    AFTER_FIRST_OUTPUT
  }

  private final Vertx vertx;
  private final int outputs;
  private final long intervalMs;
  private final Failure failure;
  private final Map<String, Run> runs = new ConcurrentHashMap<>();

  ScriptedEngine(Vertx vertx, int outputs, long intervalMs, Failure failure) {
    this.vertx = vertx;
    this.outputs = outputs;
    this.intervalMs = intervalMs;
    this.failure = failure;
  }

  static int[] expectedTokens(int firstToken, int outputs) {
    int[] tokens = new int[outputs];
    for (int i = 0; i < outputs; i++) {
      tokens[i] = firstToken * 1000 + i;
    }
    return tokens;
  }

  /** The run of {@code requestId}, created when the worker called {@link #generate}. */
  Run run(String requestId) {
    return runs.computeIfAbsent(requestId, id -> new Run());
  }

  @Override
  public ResponseStream generate(String requestId, PreprocessedRequest request) {
    if (failure == Failure.ON_GENERATE) {
      throw new IllegalArgumentException("prompt too long for this engine");
    }
    Run run = run(requestId);
    run.request.complete(request);
    return new Stream(run, request.tokenIds()[0]);
  }

  /** What the worker did with one request. */
  static final class Run {
    final CompletableFuture<PreprocessedRequest> request = new CompletableFuture<>();
    final CompletableFuture<Void> cancelled = new CompletableFuture<>();
    final CompletableFuture<Void> finished = new CompletableFuture<>();
    volatile int emitted;
  }

  private final class Stream implements ResponseStream {
    private final Run run;
    private final int firstToken;
    private Subscriber subscriber;
    private volatile boolean stopped;

    Stream(Run run, int firstToken) {
      this.run = run;
      this.firstToken = firstToken;
    }

    @Override
    public void subscribe(Subscriber s) {
      subscriber = s;
      if (failure == Failure.BEFORE_FIRST_OUTPUT) {
        vertx.setTimer(1, id -> end(new IllegalStateException("engine exploded")));
      } else {
        vertx.setTimer(1, id -> step(0));
      }
    }

    private void step(int index) {
      if (stopped) {
        return;
      }
      if (failure == Failure.AFTER_FIRST_OUTPUT && index == 1) {
        end(new IllegalStateException("engine exploded mid-stream"));
        return;
      }
      boolean last = index == outputs - 1;
      int token = firstToken * 1000 + index;
      subscriber.onOutput(
          last ? EngineOutput.finished(FinishReason.LENGTH, token) : EngineOutput.tokens(token));
      run.emitted = index + 1;
      if (last) {
        stopped = true;
        subscriber.onComplete();
        run.finished.complete(null);
      } else if (intervalMs == 0) {
        step(index + 1);
      } else {
        vertx.setTimer(intervalMs, id -> step(index + 1));
      }
    }

    private void end(Throwable error) {
      stopped = true;
      subscriber.onError(error);
      run.finished.complete(null);
    }

    @Override
    public void pause() {
      // flow-control hint; this engine is cheap enough to ignore it
    }

    @Override
    public void resume() {
      // see pause()
    }

    @Override
    public void cancel() {
      if (!stopped) {
        stopped = true;
        run.cancelled.complete(null);
        subscriber.onError(new RequestCancelledException("cancelled"));
        run.finished.complete(null);
      }
    }
  }
}
