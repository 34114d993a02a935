package io.kvrouter.app;

import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.transport.nats.NatsRequestSubjects;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Where each {@code --worker} is reached, from its spec and the request plane: its TCP address, or
 * on {@code --request-plane nats} its endpoint's NATS subject, built from {@code --namespace},
 * {@code --component}, the endpoint name and {@code instance=}; and the payload codec it takes
 * ({@code codec=}). Until the router reads discovery, this is what a Dynamo frontend learns from a
 * worker's discovery record ({@code transport}, {@code request_plane_codec}).
 */
final class WorkerEndpoints {
  private WorkerEndpoints() {}

  /** The endpoint of {@code worker}'s generate endpoint. */
  static WorkerEndpoint of(WorkerSpec worker, RouterConfig config) {
    if (worker.isHttp()) {
      return WorkerEndpoint.http(worker.id(), worker.url(), worker.engine());
    }
    String subject =
        config.requestPlane() == RequestPlaneKind.NATS
            ? NatsRequestSubjects.of(
                config.eventPlane().namespace(),
                config.eventPlane().component(),
                worker.path(),
                Long.parseUnsignedLong(worker.instance(), 16))
            : null;
    return new WorkerEndpoint(
        worker.id(),
        worker.host(),
        worker.port(),
        worker.path(),
        PayloadCodec.valueOf(worker.codec().name()),
        subject);
  }

  /** The generate endpoint of every configured worker, by worker id. */
  static Map<String, WorkerEndpoint> generate(RouterConfig config) {
    Map<String, WorkerEndpoint> endpoints = new LinkedHashMap<>();
    for (WorkerSpec worker : config.workers()) {
      endpoints.put(worker.id(), of(worker, config));
    }
    return endpoints;
  }
}
