package io.kvrouter.app;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What discovery says about each discovered worker's Dynamo event publishers, for the event plane
 * that follows it: whether the worker answers recovery queries at all (its card's {@code
 * enable_local_indexer}), and the publisher it answers them for when it has exactly one (its one
 * {@code worker_kv_query_source_{publisher_id:x}} endpoint in {@code v1/instances}). With that, a
 * Dynamo v1.5 worker that has published nothing yet is asked for its state at once, where otherwise
 * the router would wait for an envelope to name the publisher. Thread-safe: written by discovery,
 * read by the event plane.
 */
final class DiscoveredPublishers {
  /** Without discovery: every worker is followed, no publisher is known in advance. */
  static final DiscoveredPublishers NONE = new DiscoveredPublishers();

  private final Set<String> silent = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> soleSource = new ConcurrentHashMap<>();

  /** Records what discovery says about worker {@code workerId}. */
  void set(String workerId, boolean answersQueries, OptionalLong soleSourcePublisher) {
    if (answersQueries) {
      silent.remove(workerId);
    } else {
      silent.add(workerId);
    }
    if (soleSourcePublisher.isPresent()) {
      soleSource.put(workerId, soleSourcePublisher.getAsLong());
    } else {
      soleSource.remove(workerId);
    }
  }

  /** Forgets worker {@code workerId}, which left. */
  void forget(String workerId) {
    silent.remove(workerId);
    soleSource.remove(workerId);
  }

  /** Whether worker {@code workerId} keeps a local indexer that answers recovery queries. */
  boolean answersQueries(String workerId) {
    return !silent.contains(workerId);
  }

  /** The one publisher worker {@code workerId} answers recovery queries for, or null. */
  Long soleSourcePublisher(String workerId) {
    return soleSource.get(workerId);
  }
}
