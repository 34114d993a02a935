package io.kvrouter.frontend;

import io.kvrouter.common.FaultLog;
import io.kvrouter.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * Requests the HTTP layer refused before an endpoint handled them (malformed, too slow, too large,
 * no such route, over the connection limit): counted by reason, the error's code, in {@value
 * MetricNames#HTTP_REJECTED_REQUESTS}, and logged through a {@link FaultLog}, so a hostile client
 * costs a DEBUG line per request and one WARN summary a minute. Thread-safe.
 */
final class ClientFaults {
  private final MeterRegistry registry;
  private final FaultLog log;
  private final Map<String, Counter> byReason = new ConcurrentHashMap<>();

  ClientFaults(MeterRegistry registry, FaultLog log) {
    this.registry = registry;
    this.log = log;
  }

  static ClientFaults of(MeterRegistry registry) {
    return new ClientFaults(
        registry,
        FaultLog.of(LoggerFactory.getLogger(ClientFaults.class), "rejected client requests"));
  }

  /** A request was refused with {@code error}; {@code detail} says what and from whom. */
  void rejected(ErrorResponses.ApiError error, String detail) {
    String reason = error.code() == null ? "status_" + error.status() : error.code();
    byReason
        .computeIfAbsent(
            reason,
            r ->
                Counter.builder(MetricNames.HTTP_REJECTED_REQUESTS)
                    .description("Requests the HTTP layer refused before an endpoint, by reason")
                    .tag(MetricNames.TAG_REASON, r)
                    .register(registry))
        .increment();
    log.fault(error.status() + " " + reason + " (" + detail + "): " + error.message());
  }
}
