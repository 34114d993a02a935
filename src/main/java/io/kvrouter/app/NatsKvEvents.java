package io.kvrouter.app;

import io.kvrouter.config.EventPlaneConfig;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.events.DynamoEventFollower;
import io.kvrouter.events.nats.NatsEventSubscriber;
import io.kvrouter.events.nats.NatsSubjects;
import io.kvrouter.metrics.MetricNames;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.WorkerLoadCodec;
import io.kvrouter.routing.Router;
import io.kvrouter.transport.RequestPlane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's side of Dynamo's NATS event plane ({@code --event-plane nats}): the component's
 * {@code kv_events} subject (core, or a JetStream durable consumer) feeds a {@link
 * DynamoEventFollower}, whose recovery queries go to each worker over the request plane ({@link
 * RequestPlaneRecovery}); the namespace's {@code kv_metrics} subject feeds the workers' load
 * reports to the router.
 *
 * <p>After a core subscription reconnects, every worker is asked for a tree dump: whatever was
 * published meanwhile is lost. A durable consumer gets it delivered instead.
 */
final class NatsKvEvents implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NatsKvEvents.class);
  /** A worker quiet for this long is asked whether the router missed its last events. */
  static final Duration PROBE_INTERVAL = Duration.ofSeconds(2);

  private final DynamoEventFollower follower;
  private final NatsEventSubscriber events;
  private final NatsEventSubscriber loads;

  private NatsKvEvents(
      DynamoEventFollower follower, NatsEventSubscriber events, NatsEventSubscriber loads) {
    this.follower = follower;
    this.events = events;
    this.loads = loads;
  }

  static NatsKvEvents start(
      EventPlaneConfig config, List<WorkerSpec> workers, Router router, RequestPlane plane,
      MeterRegistry meters) {
    String subject = NatsSubjects.kvEvents(config.namespace(), config.component());
    DynamoEventFollower follower =
        new DynamoEventFollower(
            router.kvEventSink().orElseThrow(),
            new RequestPlaneRecovery(plane, generateEndpoints(workers)),
            config.durable(),
            PROBE_INTERVAL,
            meters);
    StartedParts started = new StartedParts();
    started.add("KV event follower", follower);
    try {
      List<WorkerRank> ranks = new ArrayList<>();
      for (WorkerSpec worker : workers) {
        for (int dp = 0; dp < worker.dpSize(); dp++) {
          WorkerRank rank = new WorkerRank(worker.id(), dp);
          ranks.add(rank);
          router.reportKvEventFeed(rank, () -> follower.feed(rank));
        }
      }
      NatsEventSubscriber.Options options =
          config.durable()
              ? NatsEventSubscriber.Options.durable(
                  config.natsServer(), subject, config.durableName())
              : NatsEventSubscriber.Options.core(config.natsServer(), subject);
      NatsEventSubscriber events =
          NatsEventSubscriber.start(
              options,
              new NatsEventSubscriber.Listener() {
                @Override
                public void message(byte[] payload) {
                  follower.onMessage(payload);
                }

                @Override
                public void connected(boolean reconnect) {
                  if (!reconnect) {
                    // ask for every rank's state once questions can reach the workers
                    ranks.forEach(follower::follow);
                  } else if (!config.durable()) {
                    follower.resyncAll();
                  }
                }
              });
      started.add("KV event subscription", events);
      NatsEventSubscriber loads = followLoads(config, router, meters);
      return new NatsKvEvents(follower, events, loads);
    } catch (RuntimeException e) {
      started.closeParts();
      throw e;
    }
  }

  private static NatsEventSubscriber followLoads(
      EventPlaneConfig config, Router router, MeterRegistry meters) {
    Counter malformedLoads =
        Counter.builder(MetricNames.KV_EVENT_MALFORMED)
            .tag(MetricNames.TAG_FORMAT, "dynamo-load")
            .register(meters);
    return NatsEventSubscriber.start(
        NatsEventSubscriber.Options.core(
            config.natsServer(), WorkerLoadCodec.subject(config.namespace())),
        payload -> {
          try {
            router.reportLoad(WorkerLoadCodec.decode(payload));
          } catch (IllegalArgumentException e) {
            malformedLoads.increment();
            log.warn("dropped a malformed load report: {}", e.getMessage());
          }
        });
  }


  private static Map<String, WorkerEndpoint> generateEndpoints(List<WorkerSpec> workers) {
    Map<String, WorkerEndpoint> endpoints = new HashMap<>();
    for (WorkerSpec worker : workers) {
      endpoints.put(
          worker.id(), new WorkerEndpoint(worker.id(), worker.host(), worker.port(), worker.path()));
    }
    return endpoints;
  }

  @Override
  public void close() {
    loads.close();
    events.close();
    follower.close();
  }
}
