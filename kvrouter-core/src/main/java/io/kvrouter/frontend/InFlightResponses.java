package io.kvrouter.frontend;

import io.vertx.core.Future;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The responses being written now, on every event loop. A shutdown whose grace period runs out ends
 * them with an error that says why, instead of letting the closing request plane report a worker
 * failure. Once ended that way, a response that starts later is ended at once.
 */
final class InFlightResponses {
  private final Set<Responder> responders = ConcurrentHashMap.newKeySet();
  private volatile Throwable ending;

  void add(Responder responder) {
    responders.add(responder);
    Throwable cause = ending;
    if (cause != null) {
      responder.abort(cause);
    }
  }

  void remove(Responder responder) {
    responders.remove(responder);
  }

  /**
   * Ends every response in flight, and every one that starts from now on, with {@code cause};
   * completes when each has written its error.
   */
  Future<Void> endAll(Throwable cause) {
    ending = cause;
    List<Future<Void>> ended = responders.stream().map(r -> r.abort(cause)).toList();
    return Future.join(ended).mapEmpty();
  }
}
