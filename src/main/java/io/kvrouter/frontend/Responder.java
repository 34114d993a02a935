package io.kvrouter.frontend;

import io.kvrouter.preprocess.Generation;
import io.vertx.core.http.HttpServerResponse;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Writes one generation to an HTTP response. A client that goes away before the end cancels the
 * generation, which stops the request at its worker.
 */
abstract class Responder implements Generation.Listener {
  final HttpServerResponse response;
  final Generation generation;
  final FrontendMetrics.RequestTracker tracker;
  private final ErrorResponses errors;
  private final AtomicBoolean ended = new AtomicBoolean();

  Responder(
      HttpServerResponse response,
      Generation generation,
      FrontendMetrics.RequestTracker tracker,
      ErrorResponses errors) {
    this.response = response;
    this.generation = generation;
    this.tracker = tracker;
    this.errors = errors;
  }

  void start() {
    response.closeHandler(v -> clientGone());
    generation.subscribe(this);
    if (response.closed()) {
      // The client left while the request was being routed; a handler set after the close never
      // runs, so the generation is stopped here (subscribed, so its ending releases the worker).
      clientGone();
    }
  }

  private void clientGone() {
    if (ended.compareAndSet(false, true)) {
      tracker.disconnected();
      tracker.finish(false);
      generation.cancel();
    }
  }

  /** Marks the response ended; returns false if it already was (e.g. the client left). */
  boolean end() {
    return ended.compareAndSet(false, true);
  }

  boolean ended() {
    return ended.get();
  }

  @Override
  public void onError(Throwable error) {
    if (end()) {
      tracker.finish(false);
      writeError(errors.of(error));
    }
  }

  abstract void writeError(ErrorResponses.ApiError error);
}
