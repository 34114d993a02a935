package io.kvrouter.worker;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.worker.engine.EngineRequest;
import io.kvrouter.worker.kv.VllmSequence;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;

/**
 * One request in a {@link SimulatedEngine}. Without a timing model it is paced by Vert.x timers on
 * the context that created it: the fixed time to first token, then the fixed delay between tokens.
 * With one, the engine's {@link EngineDriver} paces it: the request queues in the engine's
 * scheduler and gets each token when the step that computes it completes; tokens produced while the
 * subscriber is paused wait in order, since an engine does not stop for one slow reader. All state
 * is touched only on the stream's context (the driver's, when there is one).
 *
 * <p>Each emitted token that does not end the sequence is appended to the request's {@link
 * VllmSequence}, which names each block it fills: as in vLLM, a token's KV is computed in the step
 * after it is sampled, so the final token never reaches the cache. With fixed pacing the stream
 * holds the request's KV blocks ({@code generate()} allocated the prompt's), caches each block as
 * it fills, and releases them exactly once, when the stream ends or is cancelled. With the driver,
 * the engine holds them: it caches the blocks as its steps compute them and releases them when the
 * request ends or is cancelled.
 */
final class SimulatedStream implements ResponseStream {
  /** Most tokens emitted in one event-loop task when there is no delay between tokens. */
  static final int BURST = 64;

  private final Vertx vertx;
  private final Context context;
  private final SimulatedEngine.Options options;
  private final TokenSequence tokens;
  private final SimulatedEngine engine;
  private final String kvKey;

  /** Paces the stream with the timing model; null for fixed delays. */
  private final EngineDriver driver;

  private final PreprocessedRequest request;

  /** Outputs produced while paused, in order (timing model only). */
  private final ArrayDeque<EngineOutput> held = new ArrayDeque<>();

  /** Prompt and output so far. */
  private final VllmSequence blocks;

  /** With fixed pacing, whether the KV blocks were released. */
  private boolean kvReleased;

  private Subscriber subscriber;
  private boolean paused;
  private boolean stepPending;
  private boolean ended;

  /** Whether onComplete or onError was called. */
  private boolean signalled;

  private boolean cancelledBeforeStart;
  private long timer = -1;

  SimulatedStream(
      Vertx vertx,
      SimulatedEngine.Options options,
      PreprocessedRequest request,
      SimulatedEngine engine,
      String kvKey,
      VllmSequence blocks,
      EngineDriver driver) {
    this.vertx = vertx;
    this.driver = driver;
    this.request = request;
    this.context = driver != null ? driver.context() : vertx.getOrCreateContext();
    this.options = options;
    this.tokens = new TokenSequence(request, options.vocabulary(), engine.odds());
    this.engine = engine;
    this.kvKey = kvKey;
    this.blocks = blocks;
  }

  @Override
  public void subscribe(Subscriber subscriber) {
    onContext(
        () -> {
          if (this.subscriber != null) {
            throw new IllegalStateException("already subscribed");
          }
          this.subscriber = subscriber;
          engine.started();
          if (cancelledBeforeStart) {
            cancelNow();
          } else if (driver != null) {
            driver.submit(engineRequest(), new DriverOutput());
          } else {
            schedule(options.timeToFirstToken().toMillis());
          }
        });
  }

  @Override
  public void pause() {
    onContext(() -> paused = true);
  }

  @Override
  public void resume() {
    onContext(
        () -> {
          paused = false;
          while (!held.isEmpty() && !paused) {
            deliver(held.poll());
          }
          if (stepPending) {
            stepPending = false;
            step();
          }
        });
  }

  @Override
  public void cancel() {
    onContext(
        () -> {
          if (subscriber == null) {
            cancelledBeforeStart = true;
            releaseKv();
          } else {
            cancelNow();
          }
        });
  }

  /**
   * Ends the stream with a cancellation error, unless its end was already signalled; an output held
   * while paused, even the final one, is dropped.
   */
  private void cancelNow() {
    if (signalled) {
      return;
    }
    if (!ended) {
      ended = true;
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
      if (driver != null) {
        driver.cancel(kvKey);
      }
      releaseKv();
      engine.ended(true);
    }
    held.clear();
    signalled = true;
    subscriber.onError(new RequestCancelledException("request cancelled"));
  }

  private void schedule(long delayMillis) {
    if (delayMillis <= 0) {
      context.runOnContext(v -> step());
    } else {
      timer =
          vertx.setTimer(
              delayMillis,
              t -> {
                timer = -1;
                step();
              });
    }
  }

  /**
   * Emits the next token, or, with no delay between tokens, up to {@link #BURST} tokens before
   * giving the event loop back (so a huge {@code max_tokens} never holds it).
   */
  private void step() {
    boolean burst = options.interTokenLatency().isZero();
    int budget = burst ? BURST : 1;
    do {
      if (ended) {
        return;
      }
      if (paused) {
        stepPending = true;
        return;
      }
      if (emitNext()) {
        return;
      }
    } while (--budget > 0);
    schedule(options.interTokenLatency().toMillis());
  }

  /** The request as the engine's scheduler sees it: its blocks and its output limit. */
  private EngineRequest engineRequest() {
    return new EngineRequest(kvKey, request.tokenIds().length, blocks, tokens.limit());
  }

  /** What the driver's steps produce, on the stream's context. */
  private final class DriverOutput implements EngineDriver.Output {
    @Override
    public boolean token(int index) {
      return ended || emitNext();
    }

    @Override
    public void failed(Throwable error) {
      if (signalled) {
        return;
      }
      ended = true;
      releaseKv();
      engine.ended(false);
      held.clear();
      signalled = true;
      subscriber.onError(error);
    }
  }

  /**
   * Draws the next token and hands it to the subscriber, caching the block it fills.
   *
   * @return whether it ended the sequence
   */
  private boolean emitNext() {
    TokenSequence.Step next = tokens.next();
    int[] ids = next.token() < 0 ? new int[0] : new int[] {next.token()};
    if (next.finish() != null) {
      ended = true;
      releaseKv();
      engine.ended(false);
      deliver(tokens.withLogprobs(EngineOutput.finished(next.finish(), ids)));
      return true;
    }
    deliver(tokens.withLogprobs(EngineOutput.tokens(ids)));
    if (ids.length > 0) {
      appendToken(ids[0]);
    }
    return false;
  }

  /** Hands an output to the subscriber, or holds it while paused; a final one completes. */
  private void deliver(EngineOutput output) {
    if (paused) {
      held.add(output);
      return;
    }
    subscriber.onOutput(output);
    if (output.finishReason() != null) {
      signalled = true;
      subscriber.onComplete();
    }
  }

  /**
   * Appends a token the next step computes KV for; with fixed pacing, caches the block it fills
   * (the engine caches blocks as its steps compute them).
   */
  private void appendToken(int token) {
    blocks.append(token);
    if (driver == null && !kvReleased && blocks.length() % options.blockSize() == 0) {
      engine.kvCache().extend(kvKey, blocks, blocks.fullBlocks());
    }
  }

  /** With fixed pacing, releases the request's KV blocks once; the engine releases its own. */
  private void releaseKv() {
    if (driver == null && !kvReleased) {
      kvReleased = true;
      engine.kvCache().release(kvKey);
    }
  }

  private void onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
