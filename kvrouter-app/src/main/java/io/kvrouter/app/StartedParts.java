package io.kvrouter.app;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a router process has started so far, so that a stop, or a start that fails part way, closes
 * exactly that, last started first. Closing joins threads and waits for sockets, so it runs on a
 * worker thread, never on an event loop; Vert.x itself is closed after the parts.
 */
final class StartedParts {
  private static final Logger log = LoggerFactory.getLogger(StartedParts.class);

  /** How long a part closed through a future may take before the next one is closed. */
  private static final Duration ASYNC_CLOSE_LIMIT = Duration.ofSeconds(10);

  private record Part(String name, AutoCloseable closer) {}

  private final Deque<Part> parts = new ArrayDeque<>();

  /** Adds a part whose {@code close} blocks until it is closed. */
  synchronized void add(String name, AutoCloseable closer) {
    parts.push(new Part(name, closer));
  }

  /**
   * Adds a part closed asynchronously: {@code close} starts it, its future says when it is done.
   */
  void addAsync(String name, Supplier<Future<?>> close) {
    add(
        name,
        () ->
            close
                .get()
                .toCompletionStage()
                .toCompletableFuture()
                .get(ASYNC_CLOSE_LIMIT.toMillis(), TimeUnit.MILLISECONDS));
  }

  /**
   * Closes every part, last added first, on a worker thread of {@code vertx}, then {@code vertx}.
   * Every part is closed even when one fails (each failure is logged).
   *
   * <p>The future returned belongs to no Vert.x context: it completes once {@code vertx} is closed,
   * when no context is left to run a listener on.
   */
  Future<Void> closeAll(Vertx vertx) {
    Promise<Void> closed = Promise.promise();
    vertx
        .<Void>executeBlocking(
            () -> {
              closeParts();
              return null;
            },
            false)
        .onComplete(parts -> vertx.close().onComplete(closed));
    return closed.future();
  }

  /** Closes every part, last added first; blocks. */
  void closeParts() {
    Part part;
    while ((part = next()) != null) {
      try {
        part.closer().close();
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
        }
        log.warn("closing the {} failed", part.name(), e);
      }
    }
  }

  private synchronized Part next() {
    return parts.poll();
  }
}
