package io.kvrouter.testing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Records every time Vert.x's blocked-thread checker finds an event loop held longer than the limit
 * of {@link #strictOptions()}. Tests assert that {@link #blockedThreads()} stays empty, so a
 * blocking call on an event loop fails the build instead of only logging a warning.
 */
public final class BlockedEventLoopDetector {
  /** Longest an event loop task may run in tests before it counts as blocking. */
  public static final long MAX_EVENT_LOOP_MILLIS = 200;

  private final List<String> blocked = new CopyOnWriteArrayList<>();

  /** Vert.x options whose checker looks every 50 ms and flags tasks longer than the limit. */
  public static VertxOptions strictOptions() {
    return new VertxOptions()
        .setEventLoopPoolSize(2)
        .setBlockedThreadCheckInterval(50)
        .setBlockedThreadCheckIntervalUnit(TimeUnit.MILLISECONDS)
        .setMaxEventLoopExecuteTime(MAX_EVENT_LOOP_MILLIS)
        .setMaxEventLoopExecuteTimeUnit(TimeUnit.MILLISECONDS);
  }

  /** Starts recording blocked event loops of {@code vertx}. */
  public static BlockedEventLoopDetector install(Vertx vertx) {
    BlockedEventLoopDetector detector = new BlockedEventLoopDetector();
    ((VertxInternal) vertx)
        .blockedThreadChecker()
        .setThreadBlockedHandler(
            event -> {
              if (event.thread().getName().contains("eventloop")) {
                detector.blocked.add(
                    event.thread().getName()
                        + " blocked for "
                        + event.duration() / 1_000_000
                        + " ms");
              }
            });
    return detector;
  }

  public List<String> blockedThreads() {
    return List.copyOf(blocked);
  }
}
