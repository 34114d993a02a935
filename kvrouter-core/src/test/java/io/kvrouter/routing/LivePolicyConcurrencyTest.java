package io.kvrouter.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.KvRouterConfig;
import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.hash.BlockHasher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The live router calls its policy from every event loop at once: several threads choosing, booking
 * and releasing must leave every booking counted while it is held, and the books empty once all are
 * released.
 */
class LivePolicyConcurrencyTest {
  private static final int THREADS = 4;
  private static final int REQUESTS = 500;
  private static final int BLOCK_SIZE = 16;
  private static final List<RoutingPoliciesTest.Worker> WORKERS =
      List.of(
          RoutingPoliciesTest.worker("w1"),
          RoutingPoliciesTest.worker("w2", 2),
          RoutingPoliciesTest.worker("w3"));

  private final Vertx vertx = Vertx.vertx();
  private final ExecutorService threads = Executors.newFixedThreadPool(THREADS);

  @AfterEach
  void close() {
    threads.shutdownNow();
    vertx.close();
  }

  /** The requests a policy holds booked; the cache-blind turn-takers book nothing. */
  static int requestsInFlight(RoutingPolicy policy) {
    if (policy instanceof KvPolicy kv) {
      return kv.requestsInFlight();
    }
    if (policy instanceof SglangCacheAwarePolicy sglang) {
      return sglang.requestsInFlight();
    }
    return ((LoadBalancingPolicy) policy).requestsInFlight();
  }

  private static boolean booksRequests(RouterMode mode) {
    return mode != RouterMode.ROUND_ROBIN && mode != RouterMode.RANDOM;
  }

  /** Prompts of ten prefixes, so that the cache-aware policies find matches. */
  private static Prompt prompt(int thread, int i) {
    int prefix = (thread * REQUESTS + i) % 10;
    int[] tokens =
        IntStream.range(0, 96)
            .map(t -> t < 64 ? prefix * 1000 + t : thread * 100_000 + i)
            .toArray();
    return Prompt.ofTokens(tokens, BlockHasher.of(BLOCK_SIZE));
  }

  /** Runs {@code work} on every thread at once, each with its own index; returns when all end. */
  private void onEveryThread(IntConsumer work) throws Exception {
    List<Callable<Void>> all = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      all.add(
          () -> {
            work.accept(thread);
            return null;
          });
    }
    for (Future<Void> done : threads.invokeAll(all)) {
      done.get();
    }
  }

  @ParameterizedTest
  @EnumSource(RouterMode.class)
  void threadsRoutingAndReleasing_leaveTheBooksEmpty(RouterMode mode) throws Exception {
    RoutingPolicy policy =
        Routers.policy(mode, KvRouterConfig.DEFAULTS, BLOCK_SIZE, vertx, new SimpleMeterRegistry());
    List<List<RoutingPolicy.Booking>> held = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      held.add(new ArrayList<>());
    }

    // every thread books its requests and holds them, half of them past their first output
    onEveryThread(
        t -> {
          for (int i = 0; i < REQUESTS; i++) {
            Prompt prompt = prompt(t, i);
            RoutingPolicy.Booking booking =
                policy.book("t" + t + "-" + i, prompt, policy.choose(prompt, WORKERS));
            if (i % 2 == 0) {
              booking.firstOutput();
            }
            held.get(t).add(booking);
          }
        });
    assertThat(requestsInFlight(policy)).isEqualTo(booksRequests(mode) ? THREADS * REQUESTS : 0);

    // then each releases its own while routing and releasing more
    onEveryThread(
        t -> {
          for (int i = 0; i < REQUESTS; i++) {
            held.get(t).get(i).release();
            Prompt prompt = prompt(t, REQUESTS + i);
            RoutingPolicy.Booking booking =
                policy.book("u" + t + "-" + i, prompt, policy.choose(prompt, WORKERS));
            booking.firstOutput();
            booking.release();
          }
        });

    assertThat(requestsInFlight(policy)).isZero();
    for (RouteCandidate worker : WORKERS) {
      policy
          .kvView(worker)
          .ifPresent(
              kv -> {
                assertThat(kv.activeBlocks()).isZero();
                assertThat(kv.activePrefillTokens()).isZero();
              });
    }
    policy.close();
  }
}
