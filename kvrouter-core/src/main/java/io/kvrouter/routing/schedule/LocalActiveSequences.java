package io.kvrouter.routing.schedule;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@link ActiveSequences} over a concurrent map of requests and one {@link Slot} per rank.
 *
 * <p>Implementation notes. Removing a request from {@link #requests} is the one point where it is
 * claimed for release, so exactly one of {@code free}, {@code sweep} and {@code removeWorker} wins
 * and releases it. A request is put into {@link #requests} and booked on its slot under the slot's
 * lock, and every release takes the same lock, so a release that claims a request before its
 * booking has finished waits for it. A slot whose last request leaves is retired (marked and
 * removed from {@link #slots}) under its lock; an {@code add} that finds a retired slot retries
 * with a fresh one, so no booking lands on a slot nobody can see.
 */
final class LocalActiveSequences implements ActiveSequences {

  private final ConcurrentHashMap<String, Entry> requests = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<WorkerRank, Slot> slots = new ConcurrentHashMap<>();
  private final Ticker ticker;

  LocalActiveSequences(Ticker ticker) {
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  @Override
  public boolean add(String requestId, WorkerRank worker, long[] blockHashes, long prefillTokens) {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(worker, "worker");
    Objects.requireNonNull(blockHashes, "blockHashes");
    if (prefillTokens < 0) {
      throw new IllegalArgumentException("prefillTokens must be >= 0: " + prefillTokens);
    }
    long[] blocks = blockHashes.clone();
    while (true) {
      Slot slot = slots.computeIfAbsent(worker, Slot::new);
      synchronized (slot) {
        if (slot.retired) {
          continue;
        }
        Entry entry = new Entry(requestId, slot, blocks, prefillTokens, ticker.nanos());
        if (requests.putIfAbsent(requestId, entry) != null) {
          if (slot.requests == 0) {
            slot.retire(slots);
          }
          return false;
        }
        slot.book(entry);
        return true;
      }
    }
  }

  @Override
  public boolean markPrefillDone(String requestId) {
    Entry entry = requests.get(Objects.requireNonNull(requestId, "requestId"));
    if (entry == null) {
      return false;
    }
    synchronized (entry.slot) {
      if (entry.prefillTokens == 0) {
        return false;
      }
      entry.slot.prefillTokens -= entry.prefillTokens;
      entry.prefillTokens = 0;
      return true;
    }
  }

  @Override
  public boolean free(String requestId) {
    Entry entry = requests.remove(Objects.requireNonNull(requestId, "requestId"));
    if (entry == null) {
      return false;
    }
    release(entry);
    return true;
  }

  @Override
  public int sweep(Duration maxAge) {
    long maxAgeNanos = Objects.requireNonNull(maxAge, "maxAge").toNanos();
    long now = ticker.nanos();
    int freed = 0;
    for (Entry entry : requests.values()) {
      if (now - entry.addedNanos > maxAgeNanos && requests.remove(entry.requestId, entry)) {
        release(entry);
        freed++;
      }
    }
    return freed;
  }

  @Override
  public int removeWorker(String workerId) {
    Objects.requireNonNull(workerId, "workerId");
    int freed = 0;
    for (Entry entry : requests.values()) {
      if (entry.slot.worker.workerId().equals(workerId)
          && requests.remove(entry.requestId, entry)) {
        release(entry);
        freed++;
      }
    }
    return freed;
  }

  @Override
  public boolean isActive(String requestId) {
    return requests.containsKey(requestId);
  }

  @Override
  public int activeRequests() {
    return requests.size();
  }

  @Override
  public WorkerLoad load(WorkerRank worker, long[] blockHashes) {
    Objects.requireNonNull(blockHashes, "blockHashes");
    Slot slot = slots.get(Objects.requireNonNull(worker, "worker"));
    if (slot == null) {
      return idle(blockHashes);
    }
    synchronized (slot) {
      return slot.retired ? idle(blockHashes) : slot.load(blockHashes);
    }
  }

  @Override
  public Map<WorkerRank, WorkerLoad> loads() {
    Map<WorkerRank, WorkerLoad> loads = new HashMap<>();
    for (Slot slot : slots.values()) {
      synchronized (slot) {
        if (!slot.retired) {
          loads.put(slot.worker, slot.load(Entry.NO_BLOCKS));
        }
      }
    }
    return loads;
  }

  private void release(Entry entry) {
    Slot slot = entry.slot;
    synchronized (slot) {
      slot.release(entry);
      if (slot.requests == 0) {
        slot.retire(slots);
      }
    }
  }

  private static WorkerLoad idle(long[] blockHashes) {
    return blockHashes.length == 0 ? WorkerLoad.IDLE : new WorkerLoad(0, 0, 0, blockHashes.length);
  }

  /** One active request; {@link #prefillTokens} is guarded by the slot's lock. */
  private static final class Entry {
    static final long[] NO_BLOCKS = new long[0];

    final String requestId;
    final Slot slot;
    final long[] blocks;
    final long addedNanos;
    long prefillTokens;

    Entry(String requestId, Slot slot, long[] blocks, long prefillTokens, long addedNanos) {
      this.requestId = requestId;
      this.slot = slot;
      this.blocks = blocks;
      this.prefillTokens = prefillTokens;
      this.addedNanos = addedNanos;
    }
  }

  /** The load of one rank; every field is guarded by the slot itself. */
  private static final class Slot {
    final WorkerRank worker;
    final HashMap<Long, int[]> blockRefs = new HashMap<>();
    long prefillTokens;
    int requests;
    boolean retired;

    Slot(WorkerRank worker) {
      this.worker = worker;
    }

    void book(Entry entry) {
      requests++;
      prefillTokens += entry.prefillTokens;
      for (long block : entry.blocks) {
        blockRefs.computeIfAbsent(block, b -> new int[1])[0]++;
      }
    }

    void release(Entry entry) {
      requests--;
      prefillTokens -= entry.prefillTokens;
      entry.prefillTokens = 0;
      for (long block : entry.blocks) {
        int[] refs = blockRefs.get(block);
        if (--refs[0] == 0) {
          blockRefs.remove(block);
        }
      }
    }

    void retire(ConcurrentHashMap<WorkerRank, Slot> slots) {
      retired = true;
      slots.remove(worker, this);
    }

    WorkerLoad load(long[] blockHashes) {
      int newBlocks = 0;
      for (long block : blockHashes) {
        if (!blockRefs.containsKey(block)) {
          newBlocks++;
        }
      }
      return new WorkerLoad(requests, blockRefs.size(), prefillTokens, newBlocks);
    }
  }
}
