package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;

/** The three kinds of KV cache event; the label is the {@code event_type} tag value. */
enum EventKind {
  STORED("stored"),
  REMOVED("removed"),
  CLEARED("cleared");

  final String label;

  EventKind(String label) {
    this.label = label;
  }

  static EventKind of(KvCacheEvent event) {
    if (event instanceof KvCacheEvent.Stored) {
      return STORED;
    }
    if (event instanceof KvCacheEvent.Removed) {
      return REMOVED;
    }
    return CLEARED;
  }
}
