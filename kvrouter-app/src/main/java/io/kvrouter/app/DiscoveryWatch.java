package io.kvrouter.app;

import io.kvrouter.config.ConfigException;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.config.RouterDiscovery;
import io.kvrouter.discovery.etcd.EtcdDiscoveryWatcher;
import io.kvrouter.discovery.kube.KubeDiscoveryWatcher;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Starts the discovery watcher {@code --discovery-backend} names, feeding the router's models. */
final class DiscoveryWatch {
  /** How long a starting router waits for the store's first listing. */
  static final Duration FIRST_LISTING = Duration.ofSeconds(30);

  private DiscoveryWatch() {}

  /** Starts watching; the watcher reports to {@code models} from now on. */
  static AutoCloseable start(RouterConfig config, DiscoveredModels models) {
    RouterDiscovery discovery = config.discovery();
    return switch (discovery.backend()) {
      case ETCD -> EtcdDiscoveryWatcher.start(discovery.etcd().orElseThrow(), models);
      case KUBERNETES -> KubeDiscoveryWatcher.start(discovery.kube().orElseThrow(), models);
      case STATIC -> throw new IllegalArgumentException("static discovery has no watcher");
    };
  }

  /**
   * Waits until the store's first listing is applied: the router then serves what the store held
   * when it started.
   *
   * @throws ConfigException when the store does not answer in time, naming where it was looked for
   */
  static void awaitFirstListing(RouterConfig config, DiscoveredModels models) throws Exception {
    try {
      models.firstSync().get(FIRST_LISTING.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      RouterDiscovery discovery = config.discovery();
      String where =
          switch (discovery.backend()) {
            case ETCD -> "etcd at " + discovery.etcd().orElseThrow().endpoints();
            case KUBERNETES -> "the Kubernetes API server";
            case STATIC -> "nowhere";
          };
      throw new ConfigException(
          "--discovery-backend "
              + discovery.backend().configName()
              + ": "
              + where
              + " did not list the workers within "
              + FIRST_LISTING.toSeconds()
              + " s; is it running and reachable?");
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }
}
