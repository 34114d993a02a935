package io.kvrouter.sim.kv;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.RandomDistribution;
import net.jqwik.api.Tuple;
import net.jqwik.api.constraints.IntRange;

/**
 * Random streams of allocate, extend, release and clear, checked after every operation against a
 * naive model (lists and maps, no cleverness) and against the cache's invariants: never more than
 * capacity blocks; only blocks no request holds are evicted, least recently released first; the
 * events alone rebuild exactly what the cache holds; and every cached block's parent is cached, so
 * a router's radix tree never gets a store it cannot attach.
 *
 * <p>A jqwik property: a failing stream shrinks to the smallest cache and the fewest and simplest
 * operations (the shared documents come from a seed of their own, cheap to shrink), reported with
 * the property's {@code seed}. The next run tries the shrunk sample first, then that seed ({@code
 * target/jqwik-database}); {@code -Djqwik.failures.after.default=SAMPLE_ONLY} checks only the
 * sample; pin a seed while debugging with {@code @Property(tries = 150, seed = "…")}.
 */
class KvCacheManagerPropertyTest {
  private static final int OPERATIONS = 300;

  enum Kind {
    ALLOCATE,
    EXTEND,
    RELEASE,
    CLEAR
  }

  /**
   * One operation in raw numbers, read against what is running: with nothing running, anything but
   * a clear allocates. An allocation takes a prefix of document {@code doc} (up to ten blocks) and
   * up to 3 of the {@code fresh} tokens; an extension of the {@code pick}-th running request grows
   * it by up to two blocks of {@code fresh} tokens, or of the document's where {@code follow}.
   */
  record Op(Kind kind, int pick, int doc, int prefix, List<Integer> fresh, boolean follow) {
    int[] fresh(int max) {
      return fresh.stream().limit(max).mapToInt(Integer::intValue).toArray();
    }
  }

  @Provide
  Arbitrary<List<Op>> operations() {
    Arbitrary<Kind> kinds =
        Arbitraries.frequency(
            Tuple.of(40, Kind.ALLOCATE), Tuple.of(25, Kind.EXTEND), Tuple.of(30, Kind.RELEASE), Tuple.of(5, Kind.CLEAR));
    Arbitrary<Op> ops =
        Combinators.combine(
                kinds,
                Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, 40),
                Arbitraries.integers().between(0, 39).list().ofMaxSize(8),
                Arbitraries.of(false, true))
            .as(Op::new);
    return ops.list().ofMinSize(1).ofMaxSize(OPERATIONS).withSizeDistribution(RandomDistribution.uniform());
  }

  @Property(tries = 150)
  void randomOperationStreams_matchTheNaiveModel_andKeepTheInvariants(
      @ForAll @IntRange(min = 1, max = 4) int blockSize,
      @ForAll @IntRange(min = 1, max = 24) int capacity,
      @ForAll long documentsSeed,
      @ForAll("operations") List<Op> operations) {
    Documents documents = new Documents(new SplittableRandom(documentsSeed));
    KvCacheManager kv = new KvCacheManager(capacity, blockSize);
    List<List<VllmEvent>> batches = new ArrayList<>();
    EventReplay replay = new EventReplay(kv.subscribe(batches::add));
    Model model = new Model(capacity, blockSize);
    Map<String, int[]> running = new LinkedHashMap<>();
    int nextId = 0;

    for (Op op : operations) {
      KvCacheSnapshot before = kv.snapshot();
      batches.clear();
      Kind kind = running.isEmpty() && op.kind() != Kind.CLEAR ? Kind.ALLOCATE : op.kind();
      if (kind == Kind.ALLOCATE) {
        String id = "r" + nextId++;
        int[] prompt = documents.prompt(op.doc(), op.prefix() % (10 * blockSize + 1), op.fresh(3));
        KvAllocation got = kv.allocate(id, prompt);
        assertThat(got).as("allocate %s", id).isEqualTo(model.allocate(id, prompt));
        if (got.allocated()) {
          running.put(id, prompt);
        }
      } else if (kind == Kind.EXTEND) {
        String id = pick(op.pick(), running);
        int[] tokens = documents.extend(running.get(id), op.doc(), op.follow(), op.fresh(2 * blockSize));
        running.put(id, tokens);
        assertThat(kv.extend(id, tokens)).as("extend %s", id).isEqualTo(model.extend(id, tokens));
      } else if (kind == Kind.RELEASE) {
        String id = pick(op.pick(), running);
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
          removed.blockHashes().forEach(
              h -> assertThat(referencesBefore.get(h)).as("evicted block was unreferenced").isZero());
        }
      }
      replay.apply(events);

      KvCacheSnapshot after = kv.snapshot();
      assertThat(kv.activeBlocks()).as("the cheap count").isEqualTo(after.activeBlocks());
      replay.assertMatches(after);
      assertThat(after.blocks().size()).isLessThanOrEqualTo(capacity);
      assertThat(after.evictionOrder()).as("LRU order").isEqualTo(model.lru);
      Map<Long, Integer> references = new HashMap<>();
      after.blocks().forEach(b -> references.put(b.hash(), b.references()));
      assertThat(references).isEqualTo(model.references);
      Set<Long> hashes = after.hashes();
      after.blocks().forEach(
          b -> assertThat(b.parentHash() == null || hashes.contains(b.parentHash()))
              .as("parent of a cached block is cached").isTrue());
    }
  }

  /**
   * Threads hammer one cache with their own requests over shared prefixes. The listener must never
   * be called concurrently, and the events, in the order delivered, must rebuild the final state.
   */
  @Example
  void concurrentOperations_deliverEventsOneAtATime_inLockOrder() throws Exception {
    KvCacheManager kv = new KvCacheManager(48, 2);
    AtomicBoolean inListener = new AtomicBoolean();
    List<String> overlaps = new CopyOnWriteArrayList<>();
    List<List<VllmEvent>> delivered = new CopyOnWriteArrayList<>();
    KvCacheSnapshot start =
        kv.subscribe(
            events -> {
              if (!inListener.compareAndSet(false, true)) {
                overlaps.add("overlap");
              }
              delivered.add(events);
              inListener.set(false);
            });
    Documents documents = new Documents(new SplittableRandom(99));
    int threads = 4;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> workers = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      workers.add(new Thread(() -> {
        try {
          go.await();
          SplittableRandom random = new SplittableRandom(1000 + thread);
          Map<String, int[]> mine = new LinkedHashMap<>();
          for (int op = 0; op < 3000; op++) {
            int dice = random.nextInt(100);
            if (dice < 45 || mine.isEmpty()) {
              String id = "t" + thread + "-" + op;
              int[] prompt = documents.prompt(random.nextInt(4), random.nextInt(17), fresh(random, 3));
              if (kv.allocate(id, prompt).allocated()) {
                mine.put(id, prompt);
              }
            } else if (dice < 65) {
              String id = pick(random.nextInt(mine.size()), mine);
              int[] tokens = documents.extend(mine.get(id), random.nextInt(4), random.nextBoolean(), fresh(random, 4));
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
    KvCacheSnapshot end = kv.snapshot();
    replay.assertMatches(end);
    assertThat(end.activeBlocks()).isZero();
    assertThat(delivered).isNotEmpty();
  }

  /** Up to {@code max} random tokens. */
  private static int[] fresh(SplittableRandom random, int max) {
    return random.ints(random.nextInt(max + 1), 0, 40).toArray();
  }

  /** The {@code pick}-th running request, counting round. */
  private static String pick(int pick, Map<String, int[]> running) {
    List<String> ids = new ArrayList<>(running.keySet());
    return ids.get(pick % ids.size());
  }

  /** A few shared documents, so prompts and outputs share prefixes and whole blocks. */
  private static final class Documents {
    private final int[][] texts = new int[4][];

    Documents(SplittableRandom random) {
      for (int i = 0; i < texts.length; i++) {
        texts[i] = random.ints(200, 0, 40).toArray();
      }
    }

    /** The first {@code prefix} tokens of document {@code doc} (maybe none), then {@code tail}. */
    int[] prompt(int doc, int prefix, int[] tail) {
      int[] prompt = Arrays.copyOf(texts[doc], prefix + tail.length);
      System.arraycopy(tail, 0, prompt, prefix, tail.length);
      return prompt;
    }

    /**
     * {@code tokens} grown by as many tokens as {@code fresh} holds: document {@code doc}'s at the
     * same positions where {@code follow} and it has them (continuing a document it started),
     * else {@code fresh}'s.
     */
    int[] extend(int[] tokens, int doc, boolean follow, int[] fresh) {
      int[] grown = Arrays.copyOf(tokens, tokens.length + fresh.length);
      int[] text = texts[doc];
      for (int i = tokens.length; i < grown.length; i++) {
        grown[i] = follow && i < text.length ? text[i] : fresh[i - tokens.length];
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
            stores.add(BlockStored.of(run, runParent,
                Arrays.copyOfRange(tokens, from, from + run.size() * blockSize), blockSize));
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
          runParent = i > 0 ? Long.valueOf(hashes.get(i - 1).value())
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
