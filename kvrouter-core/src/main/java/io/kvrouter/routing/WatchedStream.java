package io.kvrouter.routing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.ResponseStream;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A worker's response stream under {@link StalledStreams}' watch: notes when each output arrives,
 * and whether its subscriber has paused it.
 *
 * <p>The sweep runs on its own thread, while the worker's callbacks come from the stream's; so a
 * stall is not delivered from the sweep. It marks the stream stalled and cancels it at the worker,
 * and the worker stream's own ending (normally its {@code RequestCancelledException}, or whatever
 * ending it had already queued) arrives in order on the stream's thread and is replaced by the
 * stall failure. Outputs after the mark are dropped. The subscriber therefore still gets its
 * callbacks one at a time, and exactly one ending.
 */
final class WatchedStream implements ResponseStream, ResponseStream.Subscriber {
  private enum State {
    OPEN,
    /** The subscriber cancelled: the worker's ending passes through as it is. */
    CANCELLED,
    STALLED,
    ENDED
  }

  private final StalledStreams owner;
  private final ResponseStream worker;
  private final String workerId;
  private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
  private volatile Subscriber downstream;
  private volatile long lastActivityNanos;
  private volatile boolean paused;

  WatchedStream(StalledStreams owner, ResponseStream worker, String workerId) {
    this.owner = owner;
    this.worker = worker;
    this.workerId = workerId;
  }

  @Override
  public void subscribe(Subscriber subscriber) {
    downstream = subscriber;
    lastActivityNanos = owner.now();
    owner.add(this);
    worker.subscribe(this);
  }

  @Override
  public void pause() {
    paused = true;
    worker.pause();
  }

  /** Resuming restarts the idle clock: the worker could not send while its stream was paused. */
  @Override
  public void resume() {
    lastActivityNanos = owner.now();
    paused = false;
    worker.resume();
  }

  @Override
  public void cancel() {
    state.compareAndSet(State.OPEN, State.CANCELLED);
    owner.remove(this);
    worker.cancel();
  }

  /**
   * Called by the sweep: if the stream has been open, unpaused and silent for {@code idleNanos} at
   * {@code now}, marks it stalled and cancels it at the worker; returns whether it did.
   */
  boolean expireIfIdle(long now, long idleNanos) {
    if (paused || now - lastActivityNanos < idleNanos) {
      return false;
    }
    if (!state.compareAndSet(State.OPEN, State.STALLED)) {
      return false;
    }
    owner.remove(this);
    worker.cancel();
    return true;
  }

  @Override
  public void onOutput(EngineOutput output) {
    lastActivityNanos = owner.now();
    if (state.get() == State.OPEN) {
      downstream.onOutput(output);
    }
  }

  @Override
  public void onComplete() {
    owner.remove(this);
    if (state.getAndSet(State.ENDED) == State.STALLED) {
      downstream.onError(owner.stall(workerId));
    } else {
      downstream.onComplete();
    }
  }

  @Override
  public void onError(Throwable error) {
    owner.remove(this);
    downstream.onError(
        state.getAndSet(State.ENDED) == State.STALLED ? owner.stall(workerId) : error);
  }
}
