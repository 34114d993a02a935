package io.kvrouter.frontend;

import io.kvrouter.preprocess.Delta;
import io.kvrouter.preprocess.Generation;
import io.kvrouter.protocol.FinishReason;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerResponse;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes the generations of one request to an HTTP response, one choice each (a completions request
 * with several prompts has several). The response ends when every choice has finished, or at the
 * first error. A client that goes away before the end cancels every generation, which stops the
 * requests at their workers.
 */
abstract class Responder {
  final HttpServerResponse response;
  final List<Generation> choices;
  final FrontendMetrics.RequestTracker tracker;
  private final ErrorResponses errors;
  private final InFlightResponses inFlight;
  private final RequestIds.RequestId id;
  private final AtomicBoolean ended = new AtomicBoolean();

  /** The request's event loop: every choice's callbacks run there, one at a time. */
  private Context context;

  private int unfinished;

  Responder(
      HttpServerResponse response,
      List<Generation> choices,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors,
      InFlightResponses inFlight,
      RequestIds.RequestId id) {
    this.response = response;
    this.id = id;
    this.choices = List.copyOf(choices);
    this.tracker = tracker;
    this.errors = errors;
    this.inFlight = inFlight;
    this.unfinished = choices.size();
  }

  void start() {
    context = Vertx.currentContext();
    inFlight.add(this);
    response.closeHandler(v -> clientGone());
    for (int i = 0; i < choices.size(); i++) {
      choices.get(i).subscribe(new Choice(i));
    }
    if (response.closed()) {
      // The client left while the request was being routed; a handler set after the close never
      // runs, so the generations are stopped here (subscribed, so their ending frees the workers).
      clientGone();
    }
  }

  /** Tokens of every choice's prompt. */
  int promptTokens() {
    return choices.stream().mapToInt(Generation::promptTokens).sum();
  }

  private void clientGone() {
    if (end()) {
      tracker.disconnected();
      tracker.finish(false);
      choices.forEach(Generation::cancel);
    }
  }

  boolean ended() {
    return ended.get();
  }

  /** Marks the response ended; false if it already was. */
  private boolean end() {
    if (ended.compareAndSet(false, true)) {
      inFlight.remove(this);
      return true;
    }
    return false;
  }

  /**
   * Ends the response now with {@code cause}'s error, on the request's event loop, unless it has
   * already ended; the future completes once the error is written.
   */
  Future<Void> abort(Throwable cause) {
    Promise<Void> done = Promise.promise();
    onRequestLoop(
        () -> {
          error(cause);
          done.complete();
        });
    return done.future();
  }

  /** Runs {@code action} on the request's event loop, so the state is touched by one thread. */
  private void onRequestLoop(Runnable action) {
    if (context == null || Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }

  /** New output of choice {@code index}. */
  abstract void onDelta(int index, Delta delta, int newTokens);

  /** Choice {@code index} ended normally. */
  abstract void onChoiceFinish(int index, FinishReason reason, int completionTokens);

  /** Every choice has ended normally; called once, after the last {@link #onChoiceFinish}. */
  abstract void onAllFinished();

  abstract void writeError(ErrorResponses.ApiError error);

  private void error(Throwable error) {
    if (end()) {
      tracker.finish(false);
      choices.forEach(Generation::cancel);
      writeError(errors.of(error, id));
    }
  }

  /**
   * Receives one choice's generation. Choices whose workers answer on other event loops are moved
   * to the request's, so the responder's state is only ever touched from one thread.
   */
  private final class Choice implements Generation.Listener {
    private final int index;

    Choice(int index) {
      this.index = index;
    }

    @Override
    public void onDelta(Delta delta, int newTokens) {
      onRequestLoop(() -> Responder.this.onDelta(index, delta, newTokens));
    }

    @Override
    public void onFinish(FinishReason reason, int completionTokens) {
      onRequestLoop(
          () -> {
            if (ended()) {
              return;
            }
            onChoiceFinish(index, reason, completionTokens);
            if (--unfinished == 0 && end()) {
              onAllFinished();
            }
          });
    }

    @Override
    public void onError(Throwable error) {
      onRequestLoop(() -> error(error));
    }
  }
}
