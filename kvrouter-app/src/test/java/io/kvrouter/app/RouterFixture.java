package io.kvrouter.app;

import io.kvrouter.common.Ticker;
import io.kvrouter.config.ConfigLoader;
import io.kvrouter.testing.BlockedEventLoopDetector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** A router started in this JVM on loopback, with a detector for blocked event loops. */
final class RouterFixture implements AutoCloseable {
  final RouterApplication app;
  final BlockedEventLoopDetector detector;
  final String baseUrl;

  private RouterFixture(RouterApplication app) {
    this.app = app;
    this.detector = BlockedEventLoopDetector.install(app.vertx());
    this.baseUrl = "http://127.0.0.1:" + app.httpPort();
  }

  /** Starts a router with these flags (name → values) on 127.0.0.1 and a free port. */
  static RouterFixture start(Map<String, List<String>> flags) throws Exception {
    return start(flags, Ticker.SYSTEM);
  }

  /**
   * Starts a router with these flags whose rate limits read {@code limitsClock} (a test's own
   * clock: buckets refill only when the test moves it).
   */
  static RouterFixture start(Map<String, List<String>> flags, Ticker limitsClock) throws Exception {
    Map<String, List<String>> all = new HashMap<>(flags);
    all.put("http-host", List.of("127.0.0.1"));
    all.put("http-port", List.of("0"));
    RouterApplication app =
        RouterApplication.start(
                ConfigLoader.load(all, Map.of(), null),
                BlockedEventLoopDetector.strictOptions(),
                limitsClock)
            .toCompletionStage()
            .toCompletableFuture()
            .get(60, TimeUnit.SECONDS);
    return new RouterFixture(app);
  }

  static Map<String, List<String>> workers(String... specs) {
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("worker", new ArrayList<>(List.of(specs)));
    return flags;
  }

  @Override
  public void close() throws Exception {
    app.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
