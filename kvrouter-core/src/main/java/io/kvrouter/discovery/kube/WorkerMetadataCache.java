package io.kvrouter.discovery.kube;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The readable {@code DynamoWorkerMetadata} resources by name. As the newest Dynamo does
 * (docs/notes/dynamo-discovery.md §3.3), a resource whose {@code spec.data} turns {@code null} or
 * unreadable keeps its last readable records while it is the same resource owned by the same pod
 * (server-side apply can briefly write a map back as {@code null}); otherwise it drops out.
 */
final class WorkerMetadataCache {
  private final Consumer<String> unreadable;
  private final Map<String, WorkerMetadata> usable = new HashMap<>();

  /** {@code unreadable} hears why a resource could not be read. */
  WorkerMetadataCache(Consumer<String> unreadable) {
    this.unreadable = unreadable;
  }

  /** Replaces every resource with {@code resources} (after a listing). */
  void replaceAll(List<GenericKubernetesResource> resources) {
    Map<String, WorkerMetadata> before = new HashMap<>(usable);
    usable.clear();
    for (GenericKubernetesResource resource : resources) {
      WorkerMetadata.read(resource, unreadable)
          .ifPresent(read -> keep(read, before.get(read.name())));
    }
  }

  /** {@code resource} was added or changed. */
  void put(GenericKubernetesResource resource) {
    WorkerMetadata.read(resource, unreadable)
        .ifPresent(read -> keep(read, usable.get(read.name())));
  }

  /** The resource named {@code name} was deleted. */
  void remove(String name) {
    usable.remove(name);
  }

  /** The usable resource named {@code name}: its records are present. */
  Optional<WorkerMetadata> get(String name) {
    return Optional.ofNullable(usable.get(name));
  }

  private void keep(WorkerMetadata read, WorkerMetadata before) {
    if (read.records().isPresent()) {
      usable.put(read.name(), read);
    } else if (before != null && before.sameIncarnationAs(read)) {
      usable.put(read.name(), before);
    } else {
      usable.remove(read.name());
    }
  }
}
