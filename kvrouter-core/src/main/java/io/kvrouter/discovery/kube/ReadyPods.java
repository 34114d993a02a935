package io.kvrouter.discovery.kube;

import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which worker pods are ready, from the EndpointSlices of Dynamo's discovery Services, kept per
 * slice (docs/notes/dynamo-discovery.md §3.3, as the newest Dynamo reads them): an endpoint counts
 * when {@code conditions.ready} is true and its {@code targetRef} names a pod with a uid. A pod
 * listed by several slices (while they are resharded) stays ready while any lists it; a pod name
 * listed with two different uids (two incarnations) is left out until only one remains.
 */
final class ReadyPods {
  private final Map<String, Map<String, String>> bySlice = new HashMap<>();

  /** Replaces every slice with {@code slices} (after a listing). */
  void replaceAll(List<EndpointSlice> slices) {
    bySlice.clear();
    slices.forEach(this::put);
  }

  /** {@code slice} was added or changed. */
  void put(EndpointSlice slice) {
    String name = slice.getMetadata() == null ? null : slice.getMetadata().getName();
    if (name == null) {
      return;
    }
    Map<String, String> pods = new HashMap<>();
    if (slice.getEndpoints() != null) {
      for (Endpoint endpoint : slice.getEndpoints()) {
        ObjectReference target = endpoint.getTargetRef();
        boolean ready =
            endpoint.getConditions() != null
                && Boolean.TRUE.equals(endpoint.getConditions().getReady());
        if (ready && target != null && nonEmpty(target.getName()) && nonEmpty(target.getUid())) {
          pods.put(target.getName(), target.getUid());
        }
      }
    }
    bySlice.put(name, pods);
  }

  /** The slice named {@code name} was deleted. */
  void remove(String name) {
    bySlice.remove(name);
  }

  /** Ready pods, name to uid, in name order; pods seen with conflicting uids are left out. */
  Map<String, String> ready() {
    Map<String, Set<String>> uids = new TreeMap<>();
    for (Map<String, String> pods : bySlice.values()) {
      pods.forEach((pod, uid) -> uids.computeIfAbsent(pod, p -> new HashSet<>()).add(uid));
    }
    Map<String, String> ready = new TreeMap<>();
    uids.forEach(
        (pod, seen) -> {
          if (seen.size() == 1) {
            ready.put(pod, seen.iterator().next());
          }
        });
    return ready;
  }

  private static boolean nonEmpty(String s) {
    return s != null && !s.isEmpty();
  }
}
