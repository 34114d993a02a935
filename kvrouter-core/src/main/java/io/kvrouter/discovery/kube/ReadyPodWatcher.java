package io.kvrouter.discovery.kube;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.kvrouter.config.KubeDiscoveryConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The ready pods that match a label selector in one namespace, as llm-d and vLLM's production stack
 * find plain engines: a fabric8 informer lists and watches them (relisting when its watch ends) and
 * each change is reported to a {@link Listener}: a pod is ready when its {@code Ready} condition is
 * {@code True}, it has an IP and it is not being deleted; anything else, or its deletion, takes it
 * out. Reports come on the informer's thread, in the order the API server sent the changes, and
 * only when a pod's readiness or address changed.
 *
 * <p>RBAC: get, list and watch on {@code pods} in the namespace.
 */
public final class ReadyPodWatcher implements AutoCloseable {

  /** What a watcher reports. Calls must not block for long. */
  public interface Listener {
    /** Pod {@code name} is ready at {@code ip} (again, or at a new address). */
    void podReady(String name, String ip);

    /** Pod {@code name} is not ready any more, or is gone. */
    void podGone(String name);
  }

  private static final Duration FIRST_LISTING = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final SharedIndexInformer<Pod> informer;

  private ReadyPodWatcher(KubernetesClient client, SharedIndexInformer<Pod> informer) {
    this.client = client;
    this.informer = informer;
  }

  /**
   * Starts watching the pods {@code selector} (a Kubernetes label selector, e.g. {@code app=vllm})
   * matches, with the usual client configuration, and waits for the first listing.
   *
   * @throws IllegalStateException when the API server does not list them in time
   */
  public static ReadyPodWatcher start(
      KubeDiscoveryConfig config, String selector, Listener listener) {
    return start(Config.autoConfigure(null), config, selector, listener);
  }

  /** As {@link #start(KubeDiscoveryConfig, String, Listener)}, with this client configuration. */
  public static ReadyPodWatcher start(
      Config clientConfig, KubeDiscoveryConfig config, String selector, Listener listener) {
    String namespace =
        config
            .namespace()
            .orElse(clientConfig.getNamespace() == null ? "default" : clientConfig.getNamespace());
    KubernetesClient client = new KubernetesClientBuilder().withConfig(clientConfig).build();
    Map<String, String> ready = new HashMap<>(); // on the informer's thread
    SharedIndexInformer<Pod> informer =
        client
            .pods()
            .inNamespace(namespace)
            .withLabelSelector(selector)
            .runnableInformer(0)
            .addEventHandler(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    changed(pod, listener, ready);
                  }

                  @Override
                  public void onUpdate(Pod previous, Pod pod) {
                    changed(pod, listener, ready);
                  }

                  @Override
                  public void onDelete(Pod pod, boolean finalStateUnknown) {
                    if (ready.remove(pod.getMetadata().getName()) != null) {
                      listener.podGone(pod.getMetadata().getName());
                    }
                  }
                });
    try {
      informer.start().toCompletableFuture().get(FIRST_LISTING.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      informer.close();
      client.close();
      throw new IllegalStateException(
          "the Kubernetes API server did not list the pods of "
              + selector
              + " in namespace "
              + namespace
              + " within "
              + FIRST_LISTING.toSeconds()
              + " s: "
              + e,
          e);
    }
    return new ReadyPodWatcher(client, informer);
  }

  private static void changed(Pod pod, Listener listener, Map<String, String> ready) {
    String name = pod.getMetadata().getName();
    Optional<String> ip = readyAddress(pod);
    String was = ready.get(name);
    if (ip.isPresent() && !ip.get().equals(was)) {
      ready.put(name, ip.get());
      listener.podReady(name, ip.get());
    } else if (ip.isEmpty() && was != null) {
      ready.remove(name);
      listener.podGone(name);
    }
  }

  /** The pod's IP while it is ready and not being deleted. */
  static Optional<String> readyAddress(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null
        || pod.getStatus() == null
        || pod.getStatus().getPodIP() == null
        || pod.getStatus().getPodIP().isEmpty()
        || pod.getStatus().getConditions() == null) {
      return Optional.empty();
    }
    for (PodCondition condition : pod.getStatus().getConditions()) {
      if ("Ready".equals(condition.getType()) && "True".equals(condition.getStatus())) {
        return Optional.of(pod.getStatus().getPodIP());
      }
    }
    return Optional.empty();
  }

  @Override
  public void close() {
    informer.close();
    client.close();
  }
}
