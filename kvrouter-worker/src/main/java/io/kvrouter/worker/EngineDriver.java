package io.kvrouter.worker;

import io.kvrouter.common.Ticker;
import io.kvrouter.worker.engine.EngineCore;
import io.kvrouter.worker.engine.EngineListener;
import io.kvrouter.worker.engine.EngineRequest;
import io.kvrouter.worker.engine.EngineSettings;
import io.kvrouter.worker.kv.BlockPool;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs a live worker's {@link EngineCore} in wall-clock time on one Vert.x context: each step is
 * started, waited for with a timer, and completed, and the requests' tokens come out as the steps
 * produce them, so a {@code worker} process behaves like the simulator's engines. Steps are kept to
 * their schedule: a step shorter than a timer's millisecond, or one that starts late, is paid back
 * from the next, so the average pace is the model's. The core schedules into the worker's own KV
 * cache, whose changes the worker publishes.
 *
 * <p>Everything runs on the driver's context; {@link #submit} and {@link #cancel} hop onto it.
 */
final class EngineDriver implements EngineListener {
  /** A request's side of the driver: it draws each token and says whether the request ends. */
  interface Output {
    /** Token number {@code index} was generated; returns true if the request ends with it. */
    boolean token(int index);

    /** The engine could not take the request. */
    void failed(Throwable error);
  }

  private final Vertx vertx;
  private final Ticker ticker;
  private final Context context;
  private final EngineCore core;
  private final Map<String, Output> outputs = new HashMap<>();

  /** When the step in progress is due, in nanoseconds of {@link #ticker}. */
  private long dueNanos;

  /**
   * @param kvCache the worker's KV cache, which the engine's steps fill
   * @param ticker the wall clock Vert.x's timers run on ({@link Ticker#SYSTEM})
   */
  EngineDriver(Vertx vertx, EngineSettings settings, BlockPool kvCache, Ticker ticker) {
    this.vertx = vertx;
    this.ticker = ticker;
    this.context = vertx.getOrCreateContext();
    this.core = new EngineCore(settings, this, kvCache);
  }

  Context context() {
    return context;
  }

  /**
   * Queues {@code request}; {@code output} hears its tokens on this driver's context.
   *
   * <p>A request the engine refuses (one that can never fit) is reported to {@code output} as
   * failed; callers check {@link EngineSettings#fits} first to refuse it synchronously.
   */
  void submit(EngineRequest request, Output output) {
    context.runOnContext(
        v -> {
          boolean wasIdle = !core.stepping();
          try {
            core.submit(request);
          } catch (RuntimeException e) {
            output.failed(e);
            return;
          }
          outputs.put(request.id(), output);
          if (wasIdle) {
            dueNanos = ticker.nanos(); // an idle engine starts its schedule afresh
          }
          kick();
        });
  }

  void cancel(String requestId) {
    context.runOnContext(
        v -> {
          outputs.remove(requestId);
          core.cancel(requestId);
        });
  }

  private void kick() {
    if (core.stepping()) {
      return;
    }
    EngineCore.Step step = core.startStep();
    if (step == null) {
      return;
    }
    long now = ticker.nanos();
    dueNanos += (long) (step.durationMillis() * 1e6);
    // rounded up: a step never completes before it is due
    long delayMillis = (dueNanos - now + 999_999) / 1_000_000;
    if (delayMillis < 1) {
      context.runOnContext(v -> complete(step));
    } else {
      vertx.setTimer(delayMillis, t -> complete(step));
    }
  }

  private void complete(EngineCore.Step step) {
    core.completeStep(step);
    kick();
  }

  @Override
  public boolean onToken(EngineRequest request, int index) {
    Output output = outputs.get(request.id());
    return output == null || output.token(index);
  }

  @Override
  public void onFinished(EngineRequest request) {
    // the output's token sequence shares the request's limit, so it has ended already
    outputs.remove(request.id());
  }
}
