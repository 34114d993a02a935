package io.kvrouter.routing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerStreamException;
import java.util.Set;

/**
 * The stream the caller sees for one routed request. A stream that breaks off or stalls (the worker
 * died or stopped sending) takes the worker out of rotation. While the worker has produced nothing,
 * such a failure sends the request on to the next healthy worker and the caller's subscriber is
 * attached to the new stream, so it never sees the failure. Once output has flowed, or when the
 * worker reports an error for the request itself, the failure passes through. Callbacks come from
 * the current worker's stream, so after a failover they may arrive on another thread than before,
 * one at a time and in order.
 */
final class FailoverStream implements ResponseStream, ResponseStream.Subscriber {
  private final PushRouter router;
  private final PushRouter.Routing routing;
  private final Set<String> tried;

  private PushRouter.Attempt current;
  private Subscriber downstream;
  private boolean producedOutput;
  private boolean paused;
  private boolean cancelled;

  FailoverStream(
      PushRouter router, PushRouter.Routing routing, Set<String> tried, PushRouter.Attempt first) {
    this.router = router;
    this.routing = routing;
    this.tried = tried;
    this.current = first;
  }

  @Override
  public void subscribe(Subscriber subscriber) {
    ResponseStream stream;
    synchronized (this) {
      if (downstream != null) {
        throw new IllegalStateException("already subscribed");
      }
      downstream = subscriber;
      stream = current.stream();
    }
    stream.subscribe(this);
  }

  @Override
  public void pause() {
    ResponseStream stream;
    synchronized (this) {
      paused = true;
      stream = current.stream();
    }
    stream.pause();
  }

  @Override
  public void resume() {
    ResponseStream stream;
    synchronized (this) {
      paused = false;
      stream = current.stream();
    }
    stream.resume();
  }

  @Override
  public void cancel() {
    ResponseStream stream;
    synchronized (this) {
      cancelled = true;
      stream = current.stream();
    }
    stream.cancel();
  }

  @Override
  public void onOutput(EngineOutput output) {
    boolean first;
    PushRouter.Attempt attempt;
    synchronized (this) {
      first = !producedOutput;
      producedOutput = true;
      attempt = current;
    }
    if (first) {
      attempt.route().booking().firstOutput();
    }
    downstream.onOutput(output);
  }

  @Override
  public void onComplete() {
    PushRouter.Attempt attempt;
    synchronized (this) {
      attempt = current;
    }
    router.released(attempt.route());
    router.completed(attempt.route());
    downstream.onComplete();
  }

  @Override
  public void onError(Throwable error) {
    PushRouter.Attempt failed;
    boolean workerFault;
    boolean retry;
    synchronized (this) {
      failed = current;
      workerFault =
          !cancelled && error instanceof WorkerStreamException stream && stream.disconnected();
      retry = workerFault && !producedOutput;
    }
    router.released(failed.route());
    if (workerFault) {
      router.workerFault(failed.worker(), error);
    }
    if (!retry) {
      downstream.onError(error);
      return;
    }
    router
        .dispatch(routing, tried, error)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                downstream.onError(ar.cause());
                return;
              }
              boolean cancelNow;
              boolean pauseNow;
              synchronized (this) {
                current = ar.result();
                cancelNow = cancelled;
                pauseNow = paused;
              }
              if (pauseNow) {
                ar.result().stream().pause();
              }
              ar.result().stream().subscribe(this);
              if (cancelNow) {
                ar.result().stream().cancel();
              }
            });
  }
}
