package io.kvrouter.transport.tcp;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Blocking waits for the test thread (never an event loop), bounded so a bug cannot hang. */
final class Await {

  private Await() {}

  static <T> T result(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  static Throwable failure(Future<?> future) throws Exception {
    try {
      Object value = future.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }
}
