package io.kvrouter.config;

import io.kvrouter.common.Hosts;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Plain engines found as Kubernetes pods ({@code --discovery-backend kubernetes
 * --worker-selector}): every ready pod the label selector matches is a worker at {@code
 * http://POD_IP:workerPort}, publishing vLLM's KV events at {@code tcp://POD_IP:kvEventsPort} (and
 * replaying them at {@code kvReplayPort}) when those are given.
 *
 * @param selector a Kubernetes label selector, e.g. {@code app=vllm}
 */
public record PodWorkers(
    String selector, int workerPort, OptionalInt kvEventsPort, OptionalInt kvReplayPort) {
  public PodWorkers {
    Objects.requireNonNull(selector, "selector");
    Objects.requireNonNull(kvEventsPort, "kvEventsPort");
    Objects.requireNonNull(kvReplayPort, "kvReplayPort");
    if (kvReplayPort.isPresent() && kvEventsPort.isEmpty()) {
      throw new IllegalArgumentException("a replay port goes with an events port");
    }
  }

  /** The worker spec of the pod {@code name} ready at {@code ip}. */
  public WorkerSpec worker(String name, String ip) {
    String host = Hosts.bracketed(ip);
    StringBuilder spec =
        new StringBuilder("id=")
            .append(name)
            .append(",url=http://")
            .append(host)
            .append(':')
            .append(workerPort);
    kvEventsPort.ifPresent(
        p -> spec.append(",kv-events=tcp://").append(host).append(':').append(p));
    kvReplayPort.ifPresent(
        p -> spec.append(",kv-replay=tcp://").append(host).append(':').append(p));
    return WorkerSpec.parse(spec.toString());
  }
}
