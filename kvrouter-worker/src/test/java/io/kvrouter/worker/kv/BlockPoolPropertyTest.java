package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.testing.TokenRequests;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Seeded random streams of allocate, extend, release and clear, checked after every operation
 * against a naive model (lists and maps, no cleverness) and against the cache's invariants: never
 * more than capacity blocks; only blocks no request holds are evicted, least recently released
 * first; the events alone rebuild exactly what the cache holds; and every cached block's parent is
 * cached, so a router's radix tree never gets a store it cannot attach. A failure names its seed:
 * rerun that one.
 */
class BlockPoolPropertyTest {
  private static final int SEEDS = 150;
  private static final int OPERATIONS = 300;

  @Test
  void randomOperationStreams_matchTheNaiveModel_andKeepTheInvariants() {
    for (long seed = 0; seed < SEEDS; seed++) {
      try {
        runStream(seed);
      } catch (AssertionError e) {
        throw new AssertionError("seed " + seed + ": " + e.getMessage(), e);
      }
    }
  }

  private static void runStream(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    int blockSize = random.nextInt(1, 5);
    int capacity = random.nextInt(1, 25);
    BlockPool pool = new BlockPool(capacity, blockSize);
    List<List<VllmEvent>> batches = new ArrayList<>();
    EventReplay replay = new EventReplay(pool.subscribe(new VllmEvents(batches::add)));
    TokenRequests kv = new TokenRequests(pool);
    Model model = new Model(capacity, blockSize);
    Documents documents = new Documents(random);
    Map<String, int[]> running = new LinkedHashMap<>();
    int nextId = 0;

    for (int op = 0; op < OPERATIONS; op++) {
      KvCacheSnapshot before = pool.snapshot();
      batches.clear();
      int dice = random.nextInt(100);
      if (dice < 40 || running.isEmpty() && dice < 95) {
        String id = "r" + nextId++;
        int[] prompt = documents.prompt(random, 10 * blockSize);
        KvAllocation got = kv.allocate(id, prompt);
        assertThat(got).as("allocate %s", id).isEqualTo(model.allocate(id, prompt));
        if (got.allocated()) {
          running.put(id, prompt);
        }
      } else if (dice < 65) {
        String id = pick(random, running);
        int[] tokens = documents.extend(random, running.get(id), 2 * blockSize);
        running.put(id, tokens);
        assertThat(kv.extend(id, tokens)).as("extend %s", id).isEqualTo(model.extend(id, tokens));
      } else if (dice < 95) {
        String id = pick(random, running);
        running.remove(id);
        assertThat(kv.release(id)).isTrue();
        model.release(id);
      } else {
        boolean cleared = kv.clear();
        assertThat(cleared).isEqualTo(model.clear()).isEqualTo(running.isEmpty());
      }

      assertThat(batches).as("one batch per operation at most").hasSizeLessThanOrEqualTo(1);
      List<VllmEvent> events = batches.isEmpty() ? List.of() : batches.get(0);
      assertThat(events).isEqualTo(model.events);
      Map<Long, Integer> referencesBefore = new HashMap<>();
      before.blocks().forEach(b -> referencesBefore.put(b.hash(), b.references()));
      for (VllmEvent event : events) {
        if (event instanceof BlockRemoved removed) {
          removed
              .blockHashes()
              .forEach(
                  h ->
                      assertThat(referencesBefore.get(h))
                          .as("evicted block was unreferenced")
                          .isZero());
        }
      }
      replay.apply(events);

      KvCacheSnapshot after = pool.snapshot();
      assertThat(pool.activeBlocks()).as("the cheap count").isEqualTo(after.activeBlocks());
      replay.assertMatches(after);
      assertThat(after.blocks().size()).isLessThanOrEqualTo(capacity);
      assertThat(after.evictionOrder()).as("LRU order").isEqualTo(model.lru);
      Map<Long, Integer> references = new HashMap<>();
      after.blocks().forEach(b -> references.put(b.hash(), b.references()));
      assertThat(references).isEqualTo(model.references);
      Set<Long> hashes = after.hashes();
      after
          .blocks()
          .forEach(
              b ->
                  assertThat(b.parentHash() == null || hashes.contains(b.parentHash()))
                      .as("parent of a cached block is cached")
                      .isTrue());
    }
  }

  /**
   * Threads hammer one cache with their own requests over shared prefixes. The listener must never
   * be called concurrently, and the events, in the order delivered, must rebuild the final state.
   */
  @Test
  void concurrentOperations_deliverEventsOneAtATime_inLockOrder() throws Exception {
    BlockPool pool = new BlockPool(48, 2);
    TokenRequests kv = new TokenRequests(pool);
    AtomicBoolean inListener = new AtomicBoolean();
    List<String> overlaps = new CopyOnWriteArrayList<>();
    List<List<VllmEvent>> delivered = new CopyOnWriteArrayList<>();
    KvCacheSnapshot start =
        pool.subscribe(
            new VllmEvents(
                events -> {
                  if (!inListener.compareAndSet(false, true)) {
                    overlaps.add("overlap");
                  }
                  delivered.add(events);
                  inListener.set(false);
                }));
    Documents documents = new Documents(new SplittableRandom(99));
    int threads = 4;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(
          new Thread(
              () -> {
                try {
                  go.await();
                  SplittableRandom random = new SplittableRandom(1000 + thread);
                  Map<String, int[]> mine = new LinkedHashMap<>();
                  for (int op = 0; op < 3000; op++) {
                    int dice = random.nextInt(100);
                    if (dice < 45 || mine.isEmpty()) {
                      String id = "t" + thread + "-" + op;
                      int[] prompt = documents.prompt(random, 16);
                      if (kv.allocate(id, prompt).allocated()) {
                        mine.put(id, prompt);
                      }
                    } else if (dice < 65) {
                      String id = pick(random, mine);
                      int[] tokens = documents.extend(random, mine.get(id), 4);
                      mine.put(id, tokens);
                      kv.extend(id, tokens);
                    } else {
                      kv.release(mine.keySet().iterator().next());
                      mine.remove(mine.keySet().iterator().next());
                    }
                  }
                  mine.keySet().forEach(kv::release);
                } catch (Throwable e) {
                  failures.add(e);
                }
              }));
    }
    workers.forEach(Thread::start);
    go.countDown();
    for (Thread worker : workers) {
      worker.join(60_000);
    }

    assertThat(failures).isEmpty();
    assertThat(overlaps).isEmpty();
    EventReplay replay = new EventReplay(start);
    delivered.forEach(replay::apply);
    KvCacheSnapshot end = pool.snapshot();
    replay.assertMatches(end);
    assertThat(end.activeBlocks()).isZero();
    assertThat(delivered).isNotEmpty();
  }

  private static String pick(SplittableRandom random, Map<String, int[]> running) {
    List<String> ids = new ArrayList<>(running.keySet());
    return ids.get(random.nextInt(ids.size()));
  }

  /** A few shared documents, so prompts and outputs share prefixes and whole blocks. */
  private static final class Documents {
    private final int[][] texts = new int[4][];

    Documents(SplittableRandom random) {
      for (int i = 0; i < texts.length; i++) {
        texts[i] = random.ints(200, 0, 40).toArray();
      }
    }

    /** A prefix of a document (maybe empty), then a few random tokens. */
    int[] prompt(SplittableRandom random, int maxPrefix) {
      int[] text = texts[random.nextInt(texts.length)];
      int prefix = random.nextInt(maxPrefix + 1);
      int tail = random.nextInt(4);
      int[] prompt = Arrays.copyOf(text, prefix + tail);
      for (int i = prefix; i < prompt.length; i++) {
        prompt[i] = random.nextInt(40);
      }
      return prompt;
    }

    /** The sequence grown by up to {@code max} tokens, often continuing a document it started. */
    int[] extend(SplittableRandom random, int[] tokens, int max) {
      int[] grown = Arrays.copyOf(tokens, tokens.length + random.nextInt(max + 1));
      int[] text = texts[random.nextInt(texts.length)];
      boolean follow = random.nextBoolean();
      for (int i = tokens.length; i < grown.length; i++) {
        grown[i] = follow && i < text.length ? text[i] : random.nextInt(40);
      }
      return grown;
    }
  }

  /**
   * The specification, written plainly: a map of references, a list for the LRU order, and the
   * events each operation should produce.
   */
  private static final class Model {
    final int capacity;
    final int blockSize;
    final Map<Long, Integer> references = new HashMap<>();
    final List<Long> lru = new ArrayList<>();
    final Map<String, List<VllmBlockHash>> held = new HashMap<>();
    final Set<String> stopped = new HashSet<>();
    List<VllmEvent> events = List.of();

    Model(int capacity, int blockSize) {
      this.capacity = capacity;
      this.blockSize = blockSize;
    }

    KvAllocation allocate(String id, int[] tokens) {
      List<VllmBlockHash> hashes = new VllmBlockHasher(blockSize).hashBlocks(tokens);
      KvAllocation result = place(hashes, tokens, 0);
      if (result.allocated()) {
        held.put(id, new ArrayList<>(hashes));
      }
      return result;
    }

    KvAllocation extend(String id, int[] tokens) {
      events = List.of();
      if (stopped.contains(id)) {
        return new KvAllocation(false, 0, 0, 0);
      }
      List<VllmBlockHash> all = new VllmBlockHasher(blockSize).hashBlocks(tokens);
      List<VllmBlockHash> mine = held.get(id);
      if (all.size() <= mine.size()) {
        return new KvAllocation(true, 0, 0, 0);
      }
      List<VllmBlockHash> fresh = all.subList(mine.size(), all.size());
      KvAllocation result = place(fresh, tokens, mine.size());
      if (result.allocated()) {
        mine.addAll(fresh);
      } else {
        stopped.add(id);
      }
      return result;
    }

    void release(String id) {
      events = List.of();
      List<VllmBlockHash> mine = held.remove(id);
      stopped.remove(id);
      for (int i = mine.size() - 1; i >= 0; i--) {
        long hash = mine.get(i).value();
        int left = references.get(hash) - 1;
        references.put(hash, left);
        if (left == 0) {
          lru.add(hash);
        }
      }
    }

    boolean clear() {
      events = List.of();
      if (!held.isEmpty()) {
        return false;
      }
      references.clear();
      lru.clear();
      events = List.of(new VllmEvent.AllBlocksCleared());
      return true;
    }

    private KvAllocation place(List<VllmBlockHash> hashes, int[] tokens, int firstBlock) {
      events = List.of();
      int hits = 0;
      int ownInactive = 0;
      for (VllmBlockHash hash : hashes) {
        Integer refs = references.get(hash.value());
        if (refs != null) {
          hits++;
          ownInactive += refs == 0 ? 1 : 0;
        }
      }
      int missing = hashes.size() - hits;
      int free = capacity - references.size() + lru.size() - ownInactive;
      if (missing > free) {
        return new KvAllocation(false, hits, missing, free);
      }
      boolean[] present = new boolean[hashes.size()];
      for (int i = 0; i < hashes.size(); i++) {
        long hash = hashes.get(i).value();
        Integer refs = references.get(hash);
        if (refs != null) {
          present[i] = true;
          if (refs == 0) {
            lru.remove(Long.valueOf(hash));
          }
          references.put(hash, refs + 1);
        }
      }
      List<VllmEvent> removes = new ArrayList<>();
      List<VllmEvent> stores = new ArrayList<>();
      List<Long> run = new ArrayList<>();
      Long runParent = null;
      int runStart = 0;
      for (int i = 0; i <= hashes.size(); i++) {
        if (i == hashes.size() || present[i]) {
          if (!run.isEmpty()) {
            int from = (firstBlock + runStart) * blockSize;
            stores.add(
                BlockStored.of(
                    run,
                    runParent,
                    Arrays.copyOfRange(tokens, from, from + run.size() * blockSize),
                    blockSize));
            run = new ArrayList<>();
          }
          continue;
        }
        if (references.size() == capacity) {
          long victim = lru.remove(0);
          references.remove(victim);
          removes.add(BlockRemoved.of(List.of(victim)));
        }
        if (run.isEmpty()) {
          runStart = i;
          runParent =
              i > 0
                  ? Long.valueOf(hashes.get(i - 1).value())
                  : firstBlock > 0 ? Long.valueOf(parentOf(tokens, firstBlock)) : null;
        }
        references.put(hashes.get(i).value(), 1);
        run.add(hashes.get(i).value());
      }
      List<VllmEvent> all = new ArrayList<>(removes);
      all.addAll(stores);
      events = all;
      return new KvAllocation(true, hits, missing, free);
    }

    private long parentOf(int[] tokens, int block) {
      return new VllmBlockHasher(blockSize).hashBlocks(tokens).get(block - 1).value();
    }
  }
}
