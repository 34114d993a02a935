package io.kvrouter.frontend;

import io.kvrouter.common.SettledFiles;
import io.kvrouter.common.Ticker;
import io.kvrouter.config.ApiKey;
import io.kvrouter.config.ApiKeyConfig;
import io.kvrouter.config.ApiKeyFile;
import io.kvrouter.config.RateLimits;
import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API keys at the front door ({@code --api-key}, {@code --api-keys-file}, {@code
 * --admin-api-key}): a request to an OpenAI route ({@code /v1/...}) needs a client key, and one to
 * {@code /metrics} or {@code /router/...} the admin key, each as {@code Authorization: Bearer KEY};
 * without one it gets 401 with an OpenAI error body ({@code invalid_api_key}) and {@code
 * WWW-Authenticate: Bearer}; any other path but {@code /health} and {@code /live} (an unknown one
 * too) wants the admin key when there is one. A scope without keys configured is open. Keys are
 * never logged: only their names are.
 *
 * <p>The keys file is read again when its modification time or size changed and then held for a
 * look ({@link #watch}); a file that no longer parses is logged, and the keys before stay; a file
 * that is gone takes its keys with it.
 */
public final class ApiKeyAuth implements Handler<RoutingContext> {
  private static final Logger log = LoggerFactory.getLogger(ApiKeyAuth.class);

  /** How often the keys file is looked at. */
  public static final Duration WATCH_INTERVAL = Duration.ofSeconds(2);

  /**
   * How long the rest of a refused request's body is read and dropped before its connection closes.
   */
  private static final Duration REFUSED_BODY_WAIT = Duration.ofSeconds(2);

  /** The key name counted for requests the admin key opened. */
  private static final String ADMIN = ApiKeyConfig.ADMIN_NAME;

  /** The routing-context entry holding the name of the key a request came with. */
  private static final String KEY_NAME = "kvrouter.api-key-name";

  private final ApiKeyConfig config;
  private final ApiKeys admin;
  private final MeterRegistry meters;
  private final Counter clientRejections;
  private final Counter adminRejections;
  private volatile ApiKeys clients;

  /** The counters of requests let through, by key name. */
  private final Map<String, Counter> accepted = new ConcurrentHashMap<>();

  /** The rate limits of the client keys. */
  private final RateLimiter limiter;

  /** The keys file, watched; null without one. */
  private final SettledFiles keysFile;

  /**
   * @param config the keys, those of its file as {@code ConfigLoader} read them (nothing is read
   *     here: this may run on an event loop)
   */
  public ApiKeyAuth(ApiKeyConfig config, MeterRegistry meters) {
    this(config, meters, new RateLimiter(meters, Ticker.SYSTEM));
  }

  /**
   * @param config the keys, those of its file as {@code ConfigLoader} read them (nothing is read
   *     here: this may run on an event loop)
   * @param limiter given the rate limits of the keys now and whenever the keys file changes
   */
  public ApiKeyAuth(ApiKeyConfig config, MeterRegistry meters, RateLimiter limiter) {
    this.config = config;
    this.meters = meters;
    this.limiter = limiter;
    this.admin =
        config.adminKey() == null
            ? ApiKeys.NONE
            : ApiKeys.of(List.of(new ApiKey(ADMIN, config.adminKey())));
    this.clients = clientKeys(config.fileKeys());
    // read again once it settles, whatever ConfigLoader read: a change meanwhile is not missed
    this.keysFile = config.keysFile() == null ? null : SettledFiles.untaken(config.keysFile());
    this.clientRejections = rejections(meters, "client");
    this.adminRejections = rejections(meters, "admin");
  }

  private static Counter rejections(MeterRegistry meters, String scope) {
    return Counter.builder(MetricNames.API_KEY_REJECTIONS)
        .description("Requests refused for want of a valid API key, by the scope of their route")
        .tag(MetricNames.TAG_SCOPE, scope)
        .register(meters);
  }

  /**
   * The name of the valid key the request came with; empty when its route needs no key (none are
   * configured).
   */
  public static Optional<String> keyName(RoutingContext ctx) {
    return Optional.ofNullable(ctx.get(KEY_NAME));
  }

  /**
   * The client keys {@code --api-key} and {@code fromFile} give, their rate limits handed to the
   * limiter: each key's own, over the flags' defaults; without keys, the defaults for all requests
   * together.
   */
  private ApiKeys clientKeys(List<ApiKey> fromFile) {
    List<ApiKey> keys = config.clientKeys(fromFile);
    Map<String, RateLimits> limits = new HashMap<>();
    if (config.clientKeysRequired()) {
      keys.forEach(k -> limits.put(k.name(), k.limits().over(config.limits())));
    } else {
      limits.put(RateLimiter.ANONYMOUS, config.limits());
    }
    limiter.limits(limits);
    return ApiKeys.of(keys);
  }

  /** The rate limits of the client keys. */
  public RateLimiter rateLimiter() {
    return limiter;
  }

  /** Whether every key is its own tenant of the KV cache ({@code --cache-salt-per-key}). */
  public boolean cacheSaltPerKey() {
    return config.cacheSaltPerKey();
  }

  /** Whether the OpenAI routes need a key. */
  public boolean clientKeysRequired() {
    return config.clientKeysRequired();
  }

  /** Whether {@code /metrics} and {@code /router/...} need the admin key. */
  public boolean adminKeyRequired() {
    return !admin.isEmpty();
  }

  /**
   * Sorts the request by its path: the OpenAI routes want a client key, the probes nothing, and
   * every other path (the admin routes, and any path not served, which is not told apart before the
   * key) the admin key. One trailing slash is ignored, as the routes ignore it.
   */
  @Override
  public void handle(RoutingContext ctx) {
    String path;
    try {
      path = ctx.normalizedPath();
    } catch (IllegalArgumentException undecodable) {
      ctx.next(); // no route matches it: the router answers its 400
      return;
    }
    if (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    if (OpenAiRoutes.contains(ctx)) {
      if (config.clientKeysRequired()) {
        check(ctx, clients, clientRejections);
        return;
      }
    } else if (!path.equals("/health") && !path.equals("/live") && adminKeyRequired()) {
      check(ctx, admin, adminRejections);
      return;
    }
    ctx.next();
  }

  private void check(RoutingContext ctx, ApiKeys keys, Counter rejected) {
    Optional<String> presented = bearer(ctx.request().getHeader("authorization"));
    Optional<String> name = presented.flatMap(keys::nameOf);
    if (name.isPresent()) {
      accepted.computeIfAbsent(name.get(), this::acceptedCounter).increment();
      ctx.put(KEY_NAME, name.get());
      ctx.next();
      return;
    }
    rejected.increment();
    HttpServerRequest request = ctx.request();
    HttpServerResponse response = ctx.response();
    response.putHeader("www-authenticate", "Bearer");
    if (!request.isEnded() && request.version() != HttpVersion.HTTP_2) {
      // the connection closes after the answer; closing it while the client still sends would
      // reset it and lose the answer, so the rest of the body is read and dropped, for a moment at
      // most (an HTTP/2 stream's body is bounded by its flow-control window, and ends with it)
      response.putHeader("connection", "close");
      HttpConnection connection = request.connection();
      long deadline = ctx.vertx().setTimer(REFUSED_BODY_WAIT.toMillis(), t -> connection.close());
      request.handler(dropped -> {});
      request.endHandler(
          v -> {
            ctx.vertx().cancelTimer(deadline);
            connection.close();
          });
      request.resume();
    }
    ErrorResponses.send(
        response,
        new ErrorResponses.ApiError(
            401,
            "invalid_request_error",
            "invalid_api_key",
            presented.isEmpty()
                ? "No API key given: send it as 'Authorization: Bearer KEY'"
                : "Incorrect API key provided",
            null));
  }

  private Counter acceptedCounter(String keyName) {
    return Counter.builder(MetricNames.API_KEY_REQUESTS)
        .description("Requests let through by an API key, by the key's name")
        .tag(MetricNames.TAG_KEY, keyName)
        .register(meters);
  }

  /** The token of an {@code Authorization: Bearer TOKEN} header (the scheme in any case). */
  static Optional<String> bearer(String header) {
    if (header == null) {
      return Optional.empty();
    }
    String value = header.strip();
    if (value.length() < 7 || !value.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
      return Optional.empty();
    }
    String token = value.substring(7).strip();
    // only what a key can be: printable ASCII without spaces
    return token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7f)
        ? Optional.empty()
        : Optional.of(token);
  }

  /**
   * Looks at the keys file every {@link #WATCH_INTERVAL} (the reading off the event loops), and
   * takes its keys when it changed and then stayed the same for one more look (a file being written
   * is not read half-way); returns the timer's id, for {@code vertx.cancelTimer}, or -1 without a
   * file.
   */
  public long watch(Vertx vertx) {
    if (keysFile == null) {
      return -1;
    }
    return vertx.setPeriodic(
        WATCH_INTERVAL.toMillis(), id -> vertx.executeBlocking(this::look, false));
  }

  /** One look at the keys file; true when it took new keys. */
  synchronized boolean look() {
    if (!keysFile.look()) {
      return false;
    }
    Path file = config.keysFile();
    if (!Files.exists(file)) {
      clients = clientKeys(List.of());
      log.warn(
          "--api-keys-file {} is gone: its keys no longer open anything ({} from --api-key stay)",
          file,
          config.keys().size());
      return true;
    }
    try {
      clients = clientKeys(ApiKeyFile.read(file));
    } catch (IOException | IllegalArgumentException e) {
      log.warn("--api-keys-file changed but is refused ({}): the keys before stay", e.getMessage());
      return false;
    }
    log.info("Took the API keys of {}: {}", file, clients.names());
    return true;
  }
}
