package io.kvrouter.config;

import java.util.Objects;

/**
 * Who a {@code router.jar worker} is in Kubernetes, for {@code --discovery-backend kubernetes}: its
 * pod, read as Dynamo reads it ({@code POD_NAME}, {@code POD_UID}, {@code POD_NAMESPACE}, from the
 * Downward API). The worker's {@code DynamoWorkerMetadata} is named after the pod and owned by it,
 * so it goes with the pod.
 *
 * @param discovery the namespace (empty: the client configuration's)
 */
public record KubeWorkerIdentity(String podName, String podUid, KubeDiscoveryConfig discovery) {
  public KubeWorkerIdentity {
    Objects.requireNonNull(podName, "podName");
    Objects.requireNonNull(podUid, "podUid");
    Objects.requireNonNull(discovery, "discovery");
  }
}
