package io.kvrouter.testing;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * Records every time Vert.x's blocked-thread checker finds an event loop blocked. Tests assert that
 * {@link #blockedThreads()} stays empty, so a blocking call on an event loop fails the build
 * instead of only logging a warning.
 *
 * <p>The checker measures wall time, and on a busy machine a loop that merely lost the CPU (other
 * processes, a GC pause) looks the same as one that waits. So the thread's state decides: a loop
 * found waiting (parked on a future or lock, sleeping: not {@code RUNNABLE}) past {@link
 * #MAX_EVENT_LOOP_MILLIS} is recorded, that is the blocking call this guards against; a loop found
 * running is recorded only past {@link #MAX_RUNNING_MILLIS}, work far too long for an event loop
 * that no scheduler delay explains.
 */
public final class BlockedEventLoopDetector {
  /** Longest an event loop task may wait in tests before it counts as blocking. */
  public static final long MAX_EVENT_LOOP_MILLIS = 200;

  /** Longest an event loop task may run (or be kept from running) before it counts. */
  public static final long MAX_RUNNING_MILLIS = 2_000;

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
              long millis = event.duration() / 1_000_000;
              boolean waiting = event.thread().getState() != Thread.State.RUNNABLE;
              if (event.thread().getName().contains("eventloop")
                  && (waiting || millis > MAX_RUNNING_MILLIS)) {
                detector.blocked.add(
                    event.thread().getName()
                        + " blocked for "
                        + millis
                        + " ms, "
                        + (waiting ? "waiting" : "running"));
              }
            });
    return detector;
  }

  public List<String> blockedThreads() {
    return List.copyOf(blocked);
  }
}
