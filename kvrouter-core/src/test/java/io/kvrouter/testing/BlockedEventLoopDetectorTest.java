package io.kvrouter.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The detector the integration tests rely on does catch a blocked event loop. */
class BlockedEventLoopDetectorTest {

  @Test
  void sleepingOnAnEventLoop_isDetected() {
    Vertx vertx = Vertx.vertx(BlockedEventLoopDetector.strictOptions());
    try {
      BlockedEventLoopDetector detector = BlockedEventLoopDetector.install(vertx);
      vertx.runOnContext(
          v -> {
            try {
              Thread.sleep(3 * BlockedEventLoopDetector.MAX_EVENT_LOOP_MILLIS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      await().atMost(Duration.ofSeconds(10)).until(() -> !detector.blockedThreads().isEmpty());
      assertThat(detector.blockedThreads().get(0)).contains("eventloop");
    } finally {
      vertx.close();
    }
  }

  @Test
  void waitingOnAFutureOnAnEventLoop_isDetectedAsWaiting() {
    Vertx vertx = Vertx.vertx(BlockedEventLoopDetector.strictOptions());
    CompletableFuture<Void> never = new CompletableFuture<>();
    try {
      BlockedEventLoopDetector detector = BlockedEventLoopDetector.install(vertx);
      vertx.runOnContext(v -> never.join());
      await().atMost(Duration.ofSeconds(10)).until(() -> !detector.blockedThreads().isEmpty());
      assertThat(detector.blockedThreads().get(0)).contains("eventloop", "waiting");
    } finally {
      never.complete(null);
      vertx.close();
    }
  }

  @Test
  void aLoopKeptRunning_countsOnlyPastTheRunningLimit() throws Exception {
    Vertx vertx = Vertx.vertx(BlockedEventLoopDetector.strictOptions());
    try {
      BlockedEventLoopDetector detector = BlockedEventLoopDetector.install(vertx);
      // busy for 3 times the waiting limit: what a descheduled loop looks like to the checker
      spinOnLoop(vertx, 3 * BlockedEventLoopDetector.MAX_EVENT_LOOP_MILLIS).get();
      assertThat(detector.blockedThreads()).isEmpty();

      spinOnLoop(vertx, BlockedEventLoopDetector.MAX_RUNNING_MILLIS + 500).get();
      await().atMost(Duration.ofSeconds(10)).until(() -> !detector.blockedThreads().isEmpty());
      assertThat(detector.blockedThreads().get(0)).contains("eventloop", "running");
    } finally {
      vertx.close();
    }
  }

  /** Keeps an event loop busy for {@code millis}; completes when the task ends. */
  private static CompletableFuture<Void> spinOnLoop(Vertx vertx, long millis) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    vertx.runOnContext(
        v -> {
          long end = System.nanoTime() + millis * 1_000_000;
          while (System.nanoTime() < end) {
            Thread.onSpinWait();
          }
          done.complete(null);
        });
    return done;
  }

  @Test
  void quickTasks_areNotReported() throws Exception {
    Vertx vertx = Vertx.vertx(BlockedEventLoopDetector.strictOptions());
    try {
      BlockedEventLoopDetector detector = BlockedEventLoopDetector.install(vertx);
      for (int i = 0; i < 100; i++) {
        vertx.runOnContext(v -> {});
      }
      vertx
          .timer(4 * BlockedEventLoopDetector.MAX_EVENT_LOOP_MILLIS)
          .toCompletionStage()
          .toCompletableFuture()
          .get();
      assertThat(detector.blockedThreads()).isEmpty();
    } finally {
      vertx.close();
    }
  }
}
