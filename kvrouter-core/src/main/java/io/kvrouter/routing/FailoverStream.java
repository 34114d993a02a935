package io.kvrouter.routing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerStreamException;
import java.util.HashSet;
import java.util.Set;

/**
 * The stream the caller sees for one routed request. A stream that breaks off or stalls (the worker
 * died or stopped sending) takes the worker out of rotation. While the current worker has produced
 * nothing, such a failure sends the request on to the next healthy worker not tried yet. Once it
 * has produced output, the request {@linkplain Migration migrates} while it has a migration left:
 * it continues on another worker with the tokens generated so far appended to its prompt (a request
 * whose {@code max_tokens} were all generated ends there with {@code length} instead). Either way
 * the caller's subscriber is attached to the new stream and never sees the failure; it just gets
 * the rest of the tokens. Otherwise, or when the worker reports an error for the request itself, or
 * the caller cancelled, the failure passes through. Callbacks come from the current worker's
 * stream, so after a move they may arrive on another thread than before, one at a time and in
 * order.
 */
final class FailoverStream implements ResponseStream, ResponseStream.Subscriber {
  private enum Next {
    PASS_THROUGH,
    FAIL_OVER,
    MIGRATE
  }

  private final PushRouter router;
  private final Continuation continuation;

  private PushRouter.Routing routing;
  private Set<String> tried;
  private PushRouter.Attempt current;
  private Subscriber downstream;

  /** Whether the current attempt has produced output. */
  private boolean attemptProducedOutput;

  /** Whether any attempt has: the caller's stream has begun. */
  private boolean producedOutput;

  private boolean paused;
  private boolean cancelled;

  FailoverStream(
      PushRouter router,
      PushRouter.Routing routing,
      Set<String> tried,
      PushRouter.Attempt first,
      Continuation continuation) {
    this.router = router;
    this.routing = routing;
    this.tried = tried;
    this.current = first;
    this.continuation = continuation;
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
      first = !attemptProducedOutput;
      attemptProducedOutput = true;
      producedOutput = true;
      attempt = current;
      continuation.record(output);
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
    Next next;
    synchronized (this) {
      failed = current;
      workerFault =
          !cancelled && error instanceof WorkerStreamException stream && stream.disconnected();
      if (!workerFault) {
        next = Next.PASS_THROUGH;
      } else if (!attemptProducedOutput) {
        next = Next.FAIL_OVER;
      } else {
        next = continuation.canMigrate() ? Next.MIGRATE : Next.PASS_THROUGH;
      }
    }
    router.released(failed.route());
    if (workerFault) {
      router.workerFault(failed.worker(), error);
    }
    switch (next) {
      case PASS_THROUGH -> downstream.onError(error);
      case FAIL_OVER -> redispatch(error);
      case MIGRATE -> migrate(failed, error);
    }
  }

  /**
   * Continues the request on another worker after {@code failed} broke off mid-stream; a request
   * with nothing left to generate ends here, as the worker would have ended it.
   */
  private void migrate(PushRouter.Attempt failed, Throwable error) {
    boolean spent;
    int generated;
    PushRouter.Routing continued = null;
    synchronized (this) {
      spent = continuation.budgetSpent();
      generated = continuation.generatedTokens();
      if (!spent && !cancelled) {
        continued = router.continued(routing, continuation.next());
        routing = continued;
        tried = new HashSet<>(Set.of(failed.worker().workerId()));
        attemptProducedOutput = false;
      }
    }
    if (spent) {
      downstream.onOutput(EngineOutput.finished(FinishReason.LENGTH));
      downstream.onComplete();
    } else if (continued == null) {
      // the caller cancelled while the stream broke: nothing to continue
      downstream.onError(error);
    } else {
      router.migrated(continued.requestId(), failed.worker(), generated);
      redispatch(error);
    }
  }

  /**
   * Sends the current routing to the next healthy worker not tried yet and attaches to its stream.
   * If none takes it, the caller gets {@code error} once its stream has begun (the break is what it
   * should hear of, as in Dynamo), else the dispatch's own failure (no worker available).
   */
  private void redispatch(Throwable error) {
    PushRouter.Routing sending;
    Set<String> excluded;
    boolean begun;
    synchronized (this) {
      sending = routing;
      excluded = tried;
      begun = producedOutput;
    }
    router
        .dispatch(sending, excluded, error)
        .onComplete(
            ar -> {
              if (ar.failed()) {
                downstream.onError(begun ? error : ar.cause());
                return;
              }
              ResponseStream stream = ar.result().stream();
              boolean cancelNow;
              synchronized (this) {
                current = ar.result();
                cancelNow = cancelled;
                // not subscribed yet, so it cannot call back into this lock; under the lock, a
                // resume() cannot slip in between reading the flag and pausing
                if (paused) {
                  stream.pause();
                }
              }
              stream.subscribe(this);
              if (cancelNow) {
                stream.cancel();
              }
            });
  }
}
