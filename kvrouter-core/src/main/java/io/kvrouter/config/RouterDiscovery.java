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
 */
public record RouterDiscovery(
    DiscoveryBackend backend,
    Optional<EtcdConfig> etcd,
    Optional<KubeDiscoveryConfig> kube,
    Optional<String> namespace) {

  /** The {@code --worker} list. */
  public static final RouterDiscovery STATIC =
      new RouterDiscovery(
          DiscoveryBackend.STATIC, Optional.empty(), Optional.empty(), Optional.empty());

  public RouterDiscovery {
    Objects.requireNonNull(backend, "backend");
    Objects.requireNonNull(etcd, "etcd");
    Objects.requireNonNull(kube, "kube");
    Objects.requireNonNull(namespace, "namespace");
    if (etcd.isPresent() != (backend == DiscoveryBackend.ETCD)
        || kube.isPresent() != (backend == DiscoveryBackend.KUBERNETES)) {
      throw new IllegalArgumentException("the connection settings must match backend " + backend);
    }
  }

  /** Whether workers are found in a store rather than listed with {@code --worker}. */
  public boolean dynamic() {
    return backend != DiscoveryBackend.STATIC;
  }

  /** Whether a card of Dynamo namespace {@code ns} is served. */
  public boolean serves(String ns) {
    return namespace.map(ns::equals).orElse(true);
  }
}
