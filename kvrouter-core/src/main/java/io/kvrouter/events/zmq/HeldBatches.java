package io.kvrouter.events.zmq;

import java.util.Map;
import java.util.TreeMap;

/**
 * The batches a {@link BatchSequencer} holds while a replay runs, by sequence number, with their
 * count and payload bytes, so that the sequencer can bound both. Not thread-safe.
 */
final class HeldBatches {
  private final TreeMap<Long, byte[]> batches = new TreeMap<>();
  private long bytes;

  /** Holds {@code payload} as batch {@code seq}, in place of any batch of that number. */
  void put(long seq, byte[] payload) {
    byte[] replaced = batches.put(seq, payload);
    bytes += payload.length - (replaced == null ? 0 : replaced.length);
  }

  /** Holds {@code payload} as batch {@code seq}, unless a batch of that number is held already. */
  void putIfAbsent(long seq, byte[] payload) {
    if (batches.putIfAbsent(seq, payload) == null) {
      bytes += payload.length;
    }
  }

  /** The lowest-numbered batch, or null when none is held. */
  Map.Entry<Long, byte[]> first() {
    return batches.firstEntry();
  }

  /** Drops the lowest-numbered batch, if any. */
  void dropFirst() {
    Map.Entry<Long, byte[]> first = batches.pollFirstEntry();
    if (first != null) {
      bytes -= first.getValue().length;
    }
  }

  void clear() {
    batches.clear();
    bytes = 0;
  }

  boolean isEmpty() {
    return batches.isEmpty();
  }

  int size() {
    return batches.size();
  }

  /** The payload bytes held. */
  long bytes() {
    return bytes;
  }
}
