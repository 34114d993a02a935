package io.kvrouter.discovery.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ListOptions;
import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceList;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.FilterWatchListDeletable;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.kvrouter.common.DaemonThreads;
import io.kvrouter.common.FaultLog;
import io.kvrouter.config.KubeDiscoveryConfig;
import io.kvrouter.discovery.DiscoveryListener;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.DiscoveryView;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A router's view of Dynamo's discovery in Kubernetes (docs/notes/dynamo-discovery.md §3), reported
 * to a {@link DiscoveryListener} exactly as the etcd watcher reports it.
 *
 * <p>In one namespace it lists, then watches from the listed resource versions, the {@code
 * DynamoWorkerMetadata} resources ({@code nvidia.com/v1alpha1}, one per worker pod, named after it
 * and owned by it) and the EndpointSlices labelled {@code
 * nvidia.com/dynamo-discovery-backend=kubernetes} and {@code
 * nvidia.com/dynamo-discovery-enabled=true}. A worker's records count only while its pod is ready
 * in a slice and a readable resource of that name exists whose Pod owner has the ready pod's uid
 * (so a stale resource of an earlier pod of the same name is not joined); a pod that turns not
 * ready, a deleted resource or a deleted slice takes them down at once. This is the newest Dynamo's
 * event-driven join; older ones waited 500 ms for more changes first, which only merges events.
 *
 * <p>When a watch ends for any reason (the API server closed or lost it, or the resource version is
 * gone) it lists both again (retrying every 0.5 to 2 s while the API server does not answer) and
 * reports only the difference, then {@link DiscoveryListener#synced()}; its client is built so that
 * fabric8 hands every ended watch back rather than resuming it quietly. Everything, the listener's
 * callbacks included, runs on one thread of its own, in the order the API server reported. A
 * resource that cannot be read is logged ({@link FaultLog}) and, while it is the same resource of
 * the same pod, keeps its last readable records, as Dynamo does.
 *
 * <p>RBAC: get, list and watch on {@code dynamoworkermetadatas} ({@code nvidia.com}) and {@code
 * endpointslices} ({@code discovery.k8s.io}) in the namespace.
 */
public final class KubeDiscoveryWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KubeDiscoveryWatcher.class);

  /** {@code DynamoWorkerMetadata}, as Dynamo's crd.rs declares it (namespaced, no schema). */
  public static final ResourceDefinitionContext WORKER_METADATA =
      new ResourceDefinitionContext.Builder()
          .withGroup("nvidia.com")
          .withVersion("v1alpha1")
          .withKind("DynamoWorkerMetadata")
          .withPlural("dynamoworkermetadatas")
          .withNamespaced(true)
          .build();

  /** The labels the operator puts on the Services (and so the EndpointSlices) of workers. */
  public static final Map<String, String> SLICE_LABELS =
      Map.of(
          "nvidia.com/dynamo-discovery-backend", "kubernetes",
          "nvidia.com/dynamo-discovery-enabled", "true");

  private static final long CALL_TIMEOUT_MILLIS = 10_000;
  private static final long FIRST_RETRY_MILLIS = 500;
  private static final long MAX_RETRY_MILLIS = 2_000;

  private final KubernetesClient client;
  private final String namespace;
  private final DiscoveryView view;
  private final ScheduledExecutorService thread;
  private final FaultLog unreadable = FaultLog.of(LOG, "unreadable DynamoWorkerMetadata resources");

  // all on `thread`
  private final ReadyPods readyPods = new ReadyPods();
  private final WorkerMetadataCache workers = new WorkerMetadataCache(unreadable::fault);
  private final List<Watch> watches = new ArrayList<>();
  private long generation;
  private boolean relistScheduled;
  private int failures;
  private boolean closed;

  private KubeDiscoveryWatcher(
      KubernetesClient client, String namespace, DiscoveryListener listener) {
    this.client = client;
    this.namespace = namespace;
    this.view = new DiscoveryView(listener);
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("kube-discovery-watcher"));
  }

  /**
   * Starts watching with the usual client configuration (in a pod, its service account; else the
   * kubeconfig).
   */
  public static KubeDiscoveryWatcher start(KubeDiscoveryConfig config, DiscoveryListener listener) {
    return start(Config.autoConfigure(null), config, listener);
  }

  /**
   * Starts watching the API server {@code clientConfig} names, with a client of its own built from
   * it (fabric8 then neither resumes ended watches nor retries failed calls by itself: the watcher
   * lists again instead).
   */
  public static KubeDiscoveryWatcher start(
      Config clientConfig, KubeDiscoveryConfig config, DiscoveryListener listener) {
    Config own =
        new ConfigBuilder(clientConfig)
            .withWatchReconnectLimit(0)
            .withRequestRetryBackoffLimit(0)
            .build();
    String namespace =
        config.namespace().orElse(own.getNamespace() == null ? "default" : own.getNamespace());
    KubeDiscoveryWatcher watcher =
        new KubeDiscoveryWatcher(
            new KubernetesClientBuilder().withConfig(own).build(), namespace, listener);
    watcher.thread.execute(watcher::list);
    return watcher;
  }

  /** The namespace watched. */
  public String namespace() {
    return namespace;
  }

  private NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      workerMetadata() {
    return client.genericKubernetesResources(WORKER_METADATA).inNamespace(namespace);
  }

  private FilterWatchListDeletable<EndpointSlice, EndpointSliceList, Resource<EndpointSlice>>
      slices() {
    return client.discovery().v1().endpointSlices().inNamespace(namespace).withLabels(SLICE_LABELS);
  }

  /** Lists both kinds, reports the difference, and watches each from its listed version. */
  private void list() {
    relistScheduled = false;
    if (closed) {
      return;
    }
    generation++;
    stopWatching();
    GenericKubernetesResourceList listedWorkers;
    EndpointSliceList listedSlices;
    try {
      listedWorkers = workerMetadata().list();
      listedSlices = slices().list();
    } catch (RuntimeException e) {
      retryListing("listing discovery resources in namespace " + namespace + " failed: " + e);
      return;
    }
    if (failures > 0) {
      LOG.info("the Kubernetes API server answers again; listed namespace {}", namespace);
    }
    failures = 0;
    workers.replaceAll(listedWorkers.getItems());
    readyPods.replaceAll(listedSlices.getItems());
    view.replaceAll(joined());
    view.synced();
    long watchGeneration = generation;
    try {
      watches.add(
          workerMetadata()
              .watch(
                  from(listedWorkers.getMetadata().getResourceVersion()),
                  new Relay<>(watchGeneration, this::onWorkerMetadata)));
      watches.add(
          slices()
              .watch(
                  from(listedSlices.getMetadata().getResourceVersion()),
                  new Relay<>(watchGeneration, this::onSlice)));
    } catch (RuntimeException e) {
      lost("starting a watch failed: " + e);
    }
  }

  private static ListOptions from(String resourceVersion) {
    return new ListOptionsBuilder().withResourceVersion(resourceVersion).build();
  }

  private void onWorkerMetadata(Watcher.Action action, GenericKubernetesResource resource) {
    switch (action) {
      case ADDED, MODIFIED -> workers.put(resource);
      case DELETED -> workers.remove(resource.getMetadata().getName());
      default -> {
        return;
      }
    }
    view.replaceAll(joined());
  }

  private void onSlice(Watcher.Action action, EndpointSlice slice) {
    switch (action) {
      case ADDED, MODIFIED -> readyPods.put(slice);
      case DELETED -> readyPods.remove(slice.getMetadata().getName());
      default -> {
        return;
      }
    }
    view.replaceAll(joined());
  }

  /** The records of every ready pod whose resource it owns, by key. */
  private Map<String, DiscoveryRecord> joined() {
    Map<String, DiscoveryRecord> records = new LinkedHashMap<>();
    readyPods
        .ready()
        .forEach(
            (pod, uid) ->
                workers
                    .get(pod)
                    .filter(worker -> worker.ownerPodUid().filter(uid::equals).isPresent())
                    .flatMap(WorkerMetadata::records)
                    .ifPresent(mine -> mine.forEach(records::putIfAbsent)));
    return records;
  }

  /** A watch ended: list again (soon, then with growing pauses while the server is away). */
  private void lost(String reason) {
    stopWatching();
    if (relistScheduled || closed) {
      return;
    }
    LOG.warn("Kubernetes discovery watch in {} lost ({}); listing again", namespace, reason);
    relistScheduled = true;
    thread.schedule(this::list, FIRST_RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void retryListing(String reason) {
    failures++;
    long delay = Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures - 1, 4));
    if (failures == 1 || failures % 30 == 0) {
      LOG.warn("{}; retrying every {} ms (attempt {})", reason, delay, failures);
    }
    relistScheduled = true;
    thread.schedule(this::list, delay, TimeUnit.MILLISECONDS);
  }

  private void stopWatching() {
    for (Watch watch : watches) {
      watch.close();
    }
    watches.clear();
  }

  /** Runs {@code task} on the watcher's thread unless a newer listing replaced that watch. */
  private void onThread(long watchGeneration, Runnable task) {
    try {
      thread.execute(
          () -> {
            if (watchGeneration == generation && !closed) {
              task.run();
            }
          });
    } catch (RejectedExecutionException closing) {
      // closed: the watch's last words are not needed
    }
  }

  /** Hands one watch's events to the watcher's thread, tagged with the listing they follow. */
  private final class Relay<T extends HasMetadata> implements Watcher<T> {
    private final long watchGeneration;
    private final BiConsumer<Action, T> handler;

    Relay(long watchGeneration, BiConsumer<Action, T> handler) {
      this.watchGeneration = watchGeneration;
      this.handler = handler;
    }

    @Override
    public void eventReceived(Action action, T resource) {
      onThread(watchGeneration, () -> handler.accept(action, resource));
    }

    @Override
    public void onClose(WatcherException cause) {
      onThread(watchGeneration, () -> lost(String.valueOf(cause.getMessage())));
    }

    @Override
    public void onClose() {
      onThread(watchGeneration, () -> lost("the watch was closed"));
    }
  }

  /** Stops watching (the listener hears nothing more) and closes its client. */
  @Override
  public void close() {
    try {
      thread
          .submit(
              () -> {
                closed = true;
                stopWatching();
              })
          .get(CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.debug("closing the Kubernetes discovery watcher", e);
    }
    thread.shutdownNow();
    client.close();
  }
}
