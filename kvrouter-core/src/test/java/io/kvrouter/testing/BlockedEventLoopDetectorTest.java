package io.kvrouter.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.vertx.core.Vertx;
import java.time.Duration;
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
