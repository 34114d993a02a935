package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;

/** Completions sent one after another through a router, on a thread of their own. */
final class Traffic {
  private final AtomicBoolean sending = new AtomicBoolean(true);
  private final AtomicInteger answered = new AtomicInteger();
  private final CompletableFuture<Void> done;

  private Traffic(RouterFixture router, List<String> prompts) {
    done =
        CompletableFuture.runAsync(
            () -> {
              for (int i = 0; sending.get(); i++) {
                try {
                  KvConvergence.send(router, List.of(prompts.get(i % prompts.size())));
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
                answered.incrementAndGet();
              }
            });
  }

  static Traffic start(RouterFixture router, List<String> prompts) {
    return new Traffic(router, prompts);
  }

  /** Waits until {@code count} more requests were answered. */
  void awaitMore(int count) {
    int target = answered.get() + count;
    Awaitility.await()
        .atMost(Duration.ofSeconds(60))
        .until(() -> answered.get() >= target || done.isDone());
    assertThat(done).as("the traffic failed").isNotCompletedExceptionally();
  }

  /** Stops sending; every request was answered with 200, or this throws. */
  void stop() throws Exception {
    sending.set(false);
    done.get();
  }
}
