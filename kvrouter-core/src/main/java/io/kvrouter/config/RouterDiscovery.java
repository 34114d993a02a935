package io.kvrouter.config;

import java.util.Objects;
import java.util.Optional;

/**
 * Where a router finds its workers and models ({@code --discovery-backend}).
 *
 * @param backend static (the {@code --worker} list), etcd or kubernetes
 * @param etcd how to reach etcd, with {@link DiscoveryBackend#ETCD}
 * @param kube the namespace to watch, with {@link DiscoveryBackend#KUBERNETES}
 * @param namespace the one Dynamo namespace whose model cards are served, when {@code --namespace}
 *     (or {@code DYN_NAMESPACE}) is given; empty serves the cards of every namespace, as Dynamo's
 *     frontend does without {@code --namespace}
 * @param pods with Kubernetes, plain engines found as pods ({@code --worker-selector}) instead of
 *     Dynamo workers; the router then serves its own model
 */
public record RouterDiscovery(
    DiscoveryBackend backend,
    Optional<EtcdConfig> etcd,
    Optional<KubeDiscoveryConfig> kube,
    Optional<String> namespace,
    Optional<PodWorkers> pods) {

  /** The {@code --worker} list. */
  public static final RouterDiscovery STATIC =
      new RouterDiscovery(
          DiscoveryBackend.STATIC,
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty());

  public RouterDiscovery {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(etcd, "etcd");
    Objects.requireNonNull(kube, "kube");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(pods, "pods");
    if (pods.isPresent() && backend != DiscoveryBackend.KUBERNETES) {
      throw new IllegalArgumentException("pods are found in Kubernetes only");
    }
    if (etcd.isPresent() != (backend == DiscoveryBackend.ETCD)
        || kube.isPresent() != (backend == DiscoveryBackend.KUBERNETES)) {
      throw new IllegalArgumentException("the connection settings must match backend " + backend);
    }
  }

  /**
   * Whether models and workers are found in a store (Dynamo's records) rather than configured: not
   * with {@code static}, nor with plain engines found as pods, whose model is the router's.
   */
  public boolean dynamic() {
    return backend != DiscoveryBackend.STATIC && pods.isEmpty();
  }

  /** Whether a card of Dynamo namespace {@code ns} is served. */
  public boolean serves(String ns) {
    return namespace.map(ns::equals).orElse(true);
  }
}
