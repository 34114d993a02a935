package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.ConfigLoader;
import io.kvrouter.testing.BlockedEventLoopDetector;
import io.vertx.core.Context;
import io.vertx.core.Future;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * A router process closes everything it started, both when it stops and when its start fails part
 * way, and does the blocking part of closing off the event loops. Thread names show what is left:
 * every thread a router starts (Vert.x, ZeroMQ, KV index, event subscribers) ends.
 */
class RouterApplicationCloseTest {

  /** {@code --router-mode kv} with two simulated workers publishing KV events over ZMQ. */
  private static Map<String, List<String>> kvRouterOn(int httpPort) {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("router-mode", List.of("kv"));
    flags.put("mock-workers", List.of("2"));
    flags.put("http-host", List.of("127.0.0.1"));
    flags.put("http-port", List.of(String.valueOf(httpPort)));
    return flags;
  }

  private static Future<RouterApplication> start(Map<String, List<String>> flags) {
    return RouterApplication.start(
        ConfigLoader.load(flags, Map.of(), null), BlockedEventLoopDetector.strictOptions());
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get();
  }

  private static Set<Thread> liveThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(Thread::isAlive)
        .collect(Collectors.toSet());
  }

  /**
   * Waits until every thread started since {@code before} has ended, except the JVM's own shared
   * ones (common pools, the shared cleaner), which outlive any one user of them.
   */
  private static void awaitNoThreadLeftSince(Set<Thread> before) {
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .pollInSameThread()
        .untilAsserted(
            () ->
                assertThat(
                        liveThreads().stream()
                            .filter(t -> !before.contains(t))
                            .map(Thread::getName)
                            .filter(n -> !n.startsWith("ForkJoinPool"))
                            .filter(n -> !n.startsWith("CompletableFutureDelayScheduler"))
                            .filter(n -> !n.startsWith("Cleaner-"))
                            .toList())
                    .as("threads left running")
                    .isEmpty());
  }

  @Test
  void aStartThatFailsPartWay_closesWhatItStarted_andFailsWithTheCause() throws Exception {
    Set<Thread> before = liveThreads();
    try (ServerSocket taken = new ServerSocket()) {
      taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
      // the HTTP port is the last thing bound: workers, event plane and index are up by then
      Future<RouterApplication> started = start(kvRouterOn(taken.getLocalPort()));

      assertThatThrownBy(() -> await(started))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .hasMessageContaining("in use");
    }
    awaitNoThreadLeftSince(before);
  }

  @Test
  void stop_closesEverything_offTheEventLoops() throws Exception {
    Set<Thread> before = liveThreads();
    RouterApplication app = await(start(kvRouterOn(0)));
    AtomicReference<Boolean> closedOnEventLoop = new AtomicReference<>();
    app.closeAlso("probe", () -> closedOnEventLoop.set(Context.isOnEventLoopThread()));

    // stopped from an event loop, as a Vert.x handler would
    Future<Void> stopped =
        Future.<Future<Void>>future(p -> app.vertx().runOnContext(v -> p.complete(app.stop())))
            .compose(f -> f);
    await(stopped);

    assertThat(closedOnEventLoop.get()).as("closed on an event loop").isFalse();
    awaitNoThreadLeftSince(before);
  }
}
