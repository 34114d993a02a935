package io.kvrouter.app;

import io.kvrouter.common.DaemonThreads;
import io.kvrouter.common.FaultLog;
import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.config.RouterDiscovery;
import io.kvrouter.discovery.DiscoveryListener;
import io.kvrouter.discovery.DynamoIds;
import io.kvrouter.discovery.EventChannelRecord;
import io.kvrouter.discovery.EventScope;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.ModelCard;
import io.kvrouter.discovery.ModelCardRecord;
import io.kvrouter.frontend.ServedModels;
import io.kvrouter.protocol.WorkerStatus;
import io.kvrouter.protocol.dynamo.WorkerKvQueryCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The router's side of discovery: turns what a discovery watcher reports (worker instances, model
 * cards, event channels) into served models and the workers that serve them, as Dynamo's frontend
 * does (docs/notes/dynamo-discovery.md §2.3):
 *
 * <ul>
 *   <li>every model name on a base model card (of {@code --namespace}, when given) is a served
 *       model with its own {@link ModelDeployment}, built from the first card of that name: its
 *       files ({@link CardFiles}), block size, context length and migration limit. A model whose
 *       files cannot be loaded is listed as unavailable with the reason, and built again when
 *       another card describes it. It goes when its last card goes;
 *   <li>a model's workers are the instances registered on the endpoints its cards name, each with
 *       the KV capacity and ranks of its own card (or the model's): they join and leave as their
 *       records come and go. An instance whose own card disagrees with the model's (block size or
 *       files) is left out, as Dynamo refuses a worker of another card checksum;
 *   <li>the event channels whose scope holds one of a model's endpoints are its KV event
 *       publishers.
 * </ul>
 *
 * <p>One way: each report updates the records known, then the served models are reconciled with
 * them on one thread of this class's own, so that loading a model's files or connecting sockets
 * never holds up the watcher. Reports are applied in order.
 */
final class DiscoveredModels implements DiscoveryListener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DiscoveredModels.class);

  /** Builds (and starts) the deployment of a model; may block. */
  interface Deployer {
    ModelDeployment deploy(ModelCardRecord card) throws Exception;
  }

  /** One model name found on a card: served, or unavailable with a reason. */
  private static final class Found {
    final ModelCard card;
    final ModelDeployment deployment;
    final Set<String> channels = new HashSet<>();

    Found(ModelCard card, ModelDeployment deployment) {
      this.card = card;
      this.deployment = deployment;
    }
  }

  private final RouterDiscovery settings;
  private final RequestPlaneKind plane;
  private final ServedModels served;
  private final Deployer deployer;
  private final ExecutorService thread;
  private final CompletableFuture<Void> firstSync = new CompletableFuture<>();
  private final FaultLog unreachable = FaultLog.of(log, "discovered workers left out");

  // all on `thread`
  private final Map<String, InstanceRecord> instances = new LinkedHashMap<>();
  private final Map<String, ModelCardRecord> cards = new LinkedHashMap<>();
  private final Map<String, EventChannelRecord> channels = new LinkedHashMap<>();
  private final Map<String, Found> models = new HashMap<>();
  private boolean closed;

  DiscoveredModels(
      RouterDiscovery settings, RequestPlaneKind plane, ServedModels served, Deployer deployer) {
    this.settings = settings;
    this.plane = plane;
    this.served = served;
    this.deployer = deployer;
    this.thread = Executors.newSingleThreadExecutor(DaemonThreads.named("discovery-apply"));
  }

  /** Completes once the first listing of the store has been applied. */
  CompletableFuture<Void> firstSync() {
    return firstSync;
  }

  @Override
  public void instanceUp(InstanceRecord instance) {
    apply(() -> instances.put(instance.key(), instance));
  }

  @Override
  public void instanceUpdated(InstanceRecord previous, InstanceRecord current) {
    apply(() -> instances.put(current.key(), current));
  }

  @Override
  public void instanceDown(InstanceRecord last) {
    apply(() -> instances.remove(last.key()));
  }

  @Override
  public void cardUp(ModelCardRecord card) {
    apply(() -> cards.put(card.key(), card));
  }

  @Override
  public void cardDown(ModelCardRecord last) {
    apply(() -> cards.remove(last.key()));
  }

  @Override
  public void channelUp(EventChannelRecord channel) {
    apply(() -> channels.put(channel.key(), channel));
  }

  @Override
  public void channelDown(EventChannelRecord last) {
    apply(() -> channels.remove(last.key()));
  }

  @Override
  public void synced() {
    apply(() -> firstSync.complete(null));
  }

  /** The workers of every served model, as the routers see them. */
  List<WorkerStatus> workers() {
    return onThread(
        () -> {
          List<WorkerStatus> all = new ArrayList<>();
          for (Found found : models.values()) {
            if (found.deployment != null) {
              all.addAll(found.deployment.router().workers());
            }
          }
          return all;
        });
  }

  /** Records a change, then brings the served models in line with the records. */
  private void apply(Runnable change) {
    try {
      thread.execute(
          () -> {
            if (closed) {
              return;
            }
            change.run();
            try {
              reconcile();
            } catch (RuntimeException e) {
              log.error("applying a discovery change failed", e);
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed: nothing is served any more
    }
  }

  private void reconcile() {
    Map<String, List<ModelCardRecord>> byName = new LinkedHashMap<>();
    for (ModelCardRecord card : cards.values()) {
      if (card.modelSuffix().isEmpty() && settings.serves(card.namespace())) {
        byName.computeIfAbsent(card.card().displayName(), n -> new ArrayList<>()).add(card);
      }
    }
    for (String name : List.copyOf(models.keySet())) {
      if (!byName.containsKey(name)) {
        remove(name);
      }
    }
    byName.forEach(
        (name, named) -> {
          Found found = models.get(name);
          if (found == null
              || (found.deployment == null && !found.card.equals(named.get(0).card()))) {
            // new, or unavailable and now described by another card: (try to) build it
            found = deploy(name, named.get(0));
            models.put(name, found);
          }
          if (found.deployment != null) {
            reconcileWorkers(found, named);
            reconcileChannels(found, named);
          }
        });
  }

  private Found deploy(String name, ModelCardRecord record) {
    ModelCard card = record.card();
    try {
      ModelDeployment deployment = deployer.deploy(record);
      served.add(deployment.preprocessor(), card.kvCacheBlockSize());
      log.info(
          "serving model {} (KV block size {}), found by discovery", name, card.kvCacheBlockSize());
      return new Found(card, deployment);
    } catch (Exception e) {
      String reason = e.getMessage() == null ? e.toString() : e.getMessage();
      log.warn("model {} was found but cannot be served: {}", name, reason);
      served.unavailable(name, reason);
      return new Found(card, null);
    }
  }

  private void remove(String name) {
    Found found = models.remove(name);
    if (found.deployment == null) {
      served.forgetUnavailable(name);
      return;
    }
    served.remove(name);
    found.deployment.close();
    log.info("model {} is no longer served: its last model card is gone", name);
  }

  /**
   * The model's workers become the instances on its cards' endpoints: those with a card of their
   * own for this model, and those with no card at all (a worker's card is optional in Dynamo).
   */
  private void reconcileWorkers(Found found, List<ModelCardRecord> named) {
    Set<String> endpoints = new HashSet<>();
    for (ModelCardRecord card : named) {
      endpoints.add(endpointKey(card.namespace(), card.component(), card.endpoint()));
    }
    Map<String, ModelCardRecord> ownCards = new HashMap<>();
    for (ModelCardRecord card : cards.values()) {
      if (card.modelSuffix().isEmpty()) {
        ownCards.put(
            instanceKey(card.namespace(), card.component(), card.endpoint(), card.instanceId()),
            card);
      }
    }
    String name = found.card.displayName();
    Map<String, DiscoveredWorker> wanted = new LinkedHashMap<>();
    Map<String, ModelCard> wantedCards = new HashMap<>();
    for (InstanceRecord instance : instances.values()) {
      String endpoint =
          endpointKey(instance.namespace(), instance.component(), instance.endpoint());
      if (!endpoints.contains(endpoint)) {
        continue;
      }
      ModelCardRecord own =
          ownCards.get(
              instanceKey(
                  instance.namespace(),
                  instance.component(),
                  instance.endpoint(),
                  instance.instanceId()));
      if (own != null && !own.card().displayName().equals(name)) {
        continue; // it serves another model on the same endpoint
      }
      ModelCard card = own == null ? found.card : own.card();
      String mismatch = mismatch(found.card, card);
      if (mismatch != null) {
        unreachable.fault(
            "worker "
                + instance.key()
                + " is left out of model "
                + name
                + ": its model card "
                + mismatch);
        continue;
      }
      try {
        DiscoveredWorker worker = DiscoveredWorker.of(instance, card.runtimeConfig(), plane);
        wanted.put(worker.spec().id(), worker);
        wantedCards.put(worker.spec().id(), card);
      } catch (IllegalArgumentException e) {
        unreachable.fault("worker " + instance.key() + " is left out: " + e.getMessage());
      }
    }
    WorkerFleet fleet = found.deployment.fleet();
    DiscoveredPublishers publishers = found.deployment.publishers();
    for (var member : fleet.workers()) {
      if (!wanted.containsKey(member.id())) {
        fleet.leave(member.id());
        publishers.forget(member.id());
        log.info("worker {} left model {}", member.id(), name);
      }
    }
    for (DiscoveredWorker worker : wanted.values()) {
      String id = worker.spec().id();
      publishers.set(
          id,
          wantedCards.get(id).runtimeConfig().enableLocalIndexer(),
          soleSourcePublisher(worker));
      try {
        fleet.join(worker.spec(), worker.endpoint());
      } catch (RuntimeException e) {
        log.warn("worker {} could not join model {}: {}", id, name, e.toString());
      }
    }
  }

  /**
   * The one event publisher whose recovery endpoint ({@code worker_kv_query_source_{id:x}}) the
   * worker registered next to its generate endpoint, if it registered exactly one.
   */
  private OptionalLong soleSourcePublisher(DiscoveredWorker worker) {
    String prefix = WorkerKvQueryCodec.SOURCE_ENDPOINT_PREFIX;
    long id = Long.parseUnsignedLong(worker.spec().id());
    OptionalLong sole = OptionalLong.empty();
    int found = 0;
    for (InstanceRecord instance : instances.values()) {
      if (instance.instanceId() == id && instance.endpoint().startsWith(prefix)) {
        try {
          sole =
              OptionalLong.of(
                  DynamoIds.parseHex(
                      instance.endpoint().substring(prefix.length()), instance.key()));
          found++;
        } catch (RuntimeException e) {
          // not a publisher's endpoint after all
        }
      }
    }
    return found == 1 ? sole : OptionalLong.empty();
  }

  private static String instanceKey(
      String namespace, String component, String endpoint, long instanceId) {
    return endpointKey(namespace, component, endpoint) + "/" + Long.toUnsignedString(instanceId);
  }

  /** The model's event publishers become the channels whose scope holds one of its endpoints. */
  private void reconcileChannels(Found found, List<ModelCardRecord> named) {
    Set<String> wanted = new HashSet<>();
    for (EventChannelRecord channel : channels.values()) {
      for (ModelCardRecord card : named) {
        if (covers(channel.scope(), card)) {
          wanted.add(channel.key());
          break;
        }
      }
    }
    for (String key : List.copyOf(found.channels)) {
      if (!wanted.contains(key)) {
        found.channels.remove(key);
        found.deployment.channelDown(key);
      }
    }
    for (String key : wanted) {
      if (found.channels.add(key)) {
        found.deployment.channelUp(channels.get(key));
      }
    }
  }

  private static boolean covers(EventScope scope, ModelCardRecord card) {
    if (!scope.namespace().equals(card.namespace())) {
      return false;
    }
    return switch (scope.kind()) {
      case NAMESPACE -> true;
      case COMPONENT -> scope.component().equals(card.component());
      case ENDPOINT ->
          scope.component().equals(card.component()) && scope.endpoint().equals(card.endpoint());
    };
  }

  /** What in {@code card} disagrees with the model's {@code first} card, or null. */
  private static String mismatch(ModelCard first, ModelCard card) {
    if (card == first) {
      return null;
    }
    if (card.kvCacheBlockSize() != first.kvCacheBlockSize()) {
      return "has KV block size "
          + card.kvCacheBlockSize()
          + ", the model's has "
          + first.kvCacheBlockSize();
    }
    if (!checksums(card).equals(checksums(first))) {
      return "points at other files than the model's (drain the old workers before deploying a"
          + " new version)";
    }
    return null;
  }

  private static Map<String, String> checksums(ModelCard card) {
    Map<String, String> sums = new HashMap<>();
    card.files().forEach((field, file) -> sums.put(field, file.checksum()));
    return sums;
  }

  private static String endpointKey(String namespace, String component, String endpoint) {
    return namespace + "/" + component + "/" + endpoint;
  }

  private <T> T onThread(java.util.concurrent.Callable<T> task) {
    try {
      return thread.submit(task).get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stops applying changes and closes every model's deployment; blocks until done. */
  @Override
  public void close() {
    CompletableFuture<Void> done = new CompletableFuture<>();
    try {
      thread.execute(
          () -> {
            closed = true;
            for (Found found : models.values()) {
              if (found.deployment != null) {
                try {
                  found.deployment.close();
                } catch (RuntimeException e) {
                  log.warn("closing model {} failed", found.card.displayName(), e);
                }
              }
            }
            models.clear();
            done.complete(null);
          });
      done.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("closing the discovered models did not finish", e);
    } finally {
      thread.shutdownNow();
    }
  }

  @Override
  public String toString() {
    return "DiscoveredModels" + Objects.toString(settings);
  }
}
