package io.kvrouter.frontend;

import io.kvrouter.common.FileStamp;
import io.kvrouter.config.ApiKey;
import io.kvrouter.config.ApiKeyConfig;
import io.kvrouter.config.ApiKeyFile;
import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The API keys at the front door ({@code --api-key}, {@code --api-keys-file}, {@code
 * --admin-api-key}): a request to an OpenAI route ({@code /v1/...}) needs a client key, and one to
 * {@code /metrics} or {@code /router/...} the admin key, each as {@code Authorization: Bearer KEY};
 * without one it gets 401 with an OpenAI error body ({@code invalid_api_key}) and {@code
 * WWW-Authenticate: Bearer}. A scope without keys configured is open, and so are {@code /health}
 * and {@code /live}. Keys are never logged: only their names are.
 *
 * <p>The keys file is read again when its modification time or size changes ({@link #watch}); a
 * file that no longer parses is logged, and the keys before stay.
 */
public final class ApiKeyAuth implements Handler<RoutingContext> {
  private static final Logger log = LoggerFactory.getLogger(ApiKeyAuth.class);

  /** How often the keys file is looked at. */
  public static final Duration WATCH_INTERVAL = Duration.ofSeconds(2);

  /** The key name counted for requests the admin key opened. */
  private static final String ADMIN = "admin";

  private final ApiKeyConfig config;
  private final ApiKeys admin;
  private final MeterRegistry meters;
  private final Counter clientRejections;
  private final Counter adminRejections;
  private volatile ApiKeys clients;

  /** What the keys file looked like when last read. */
  private FileStamp read;

  /**
   * @param config the keys; its file must have been read without fault already ({@code
   *     ConfigLoader} does)
   */
  public ApiKeyAuth(ApiKeyConfig config, MeterRegistry meters) {
    this.config = config;
    this.meters = meters;
    this.admin =
        config.adminKey() == null
            ? ApiKeys.NONE
            : ApiKeys.of(List.of(new ApiKey(ADMIN, config.adminKey())));
    this.clients = ApiKeys.of(config.keys());
    this.clientRejections = rejections(meters, "client");
    this.adminRejections = rejections(meters, "admin");
    if (config.keysFile() != null) {
      reload();
    }
  }

  private static Counter rejections(MeterRegistry meters, String scope) {
    return Counter.builder(MetricNames.API_KEY_REJECTIONS)
        .description("Requests refused for want of a valid API key, by the scope of their route")
        .tag(MetricNames.TAG_SCOPE, scope)
        .register(meters);
  }

  /** Whether the OpenAI routes need a key. */
  public boolean clientKeysRequired() {
    return config.clientKeysRequired();
  }

  /** Whether {@code /metrics} and {@code /router/...} need the admin key. */
  public boolean adminKeyRequired() {
    return !admin.isEmpty();
  }

  @Override
  public void handle(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    if (path.startsWith("/v1/") && config.clientKeysRequired()) {
      check(ctx, clients, clientRejections);
    } else if ((path.equals("/metrics") || path.startsWith("/router/")) && adminKeyRequired()) {
      check(ctx, admin, adminRejections);
    } else {
      ctx.next();
    }
  }

  private void check(RoutingContext ctx, ApiKeys keys, Counter rejected) {
    Optional<String> presented = bearer(ctx.request().getHeader("authorization"));
    Optional<String> name = presented.flatMap(keys::nameOf);
    if (name.isPresent()) {
      Counter.builder(MetricNames.API_KEY_REQUESTS)
          .description("Requests let through by an API key, by the key's name")
          .tag(MetricNames.TAG_KEY, name.get())
          .register(meters)
          .increment();
      ctx.next();
      return;
    }
    rejected.increment();
    ctx.response().putHeader("www-authenticate", "Bearer");
    ErrorResponses.send(
        ctx.response(),
        new ErrorResponses.ApiError(
            401,
            "invalid_request_error",
            "invalid_api_key",
            presented.isEmpty()
                ? "No API key given: send it as 'Authorization: Bearer KEY'"
                : "Incorrect API key provided",
            null));
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
    return token.isEmpty() ? Optional.empty() : Optional.of(token);
  }

  /**
   * Looks at the keys file every {@link #WATCH_INTERVAL} (the reading off the event loops), and
   * takes its keys when it changed; returns the timer's id, for {@code vertx.cancelTimer}, or -1
   * without a file.
   */
  public long watch(Vertx vertx) {
    if (config.keysFile() == null) {
      return -1;
    }
    return vertx.setPeriodic(
        WATCH_INTERVAL.toMillis(), id -> vertx.executeBlocking(() -> reload(), false));
  }

  /** Reads the keys file again if it changed; true when it took new keys. */
  synchronized boolean reload() {
    Path file = config.keysFile();
    FileStamp now;
    try {
      now = FileStamp.of(file);
    } catch (IOException e) {
      log.warn("--api-keys-file {} cannot be read ({}): the keys before stay", file, e.toString());
      return false;
    }
    if (now.equals(read)) {
      return false;
    }
    read = now;
    List<ApiKey> keys = new ArrayList<>(config.keys());
    try {
      keys.addAll(ApiKeyFile.read(file));
    } catch (IOException | IllegalArgumentException e) {
      log.warn(
          "--api-keys-file changed but does not parse ({}): the keys before stay", e.getMessage());
      return false;
    }
    if (config.adminKey() != null
        && keys.stream().anyMatch(k -> k.key().equals(config.adminKey()))) {
      log.warn("--api-keys-file {} changed but holds the admin key: the keys before stay", file);
      return false;
    }
    boolean first = clients.isEmpty() && config.keys().isEmpty();
    clients = ApiKeys.of(keys);
    log.info(
        "{} API keys from {}: {}", first ? "Took" : "Took again", file, ApiKeys.of(keys).names());
    return true;
  }
}
