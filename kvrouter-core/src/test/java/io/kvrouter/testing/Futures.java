package io.kvrouter.testing;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/** Waiting for Vert.x futures from test threads (never from an event loop). */
public final class Futures {
  private Futures() {}

  /** The future's result, waiting up to 10 s. */
  public static <T> T result(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** The future's failure, waiting up to 10 s; an {@link AssertionError} if it succeeds. */
  public static Throwable failure(Future<?> future) throws Exception {
    try {
      result(future);
    } catch (ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected a failure");
  }
}
