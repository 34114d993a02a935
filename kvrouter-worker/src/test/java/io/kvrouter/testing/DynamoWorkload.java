package io.kvrouter.testing;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.worker.kv.BlockPool;
import io.kvrouter.worker.kv.KvCacheSnapshot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Test helpers for {@link WorkerKvEventLog}: a random workload on a {@link BlockPool} (shared
 * prefixes, extensions, releases, the odd clear) and the (engine hash, router tokens hash) pairs
 * that the cache, or a router, holds.
 */
public final class DynamoWorkload {
  private final TokenRequests kv;
  private final int blockSize;
  private final SplittableRandom random;
  private final List<int[]> documents = new ArrayList<>();
  private final Map<String, int[]> running = new HashMap<>();
  private final String prefix;
  private int nextRequest;

  public DynamoWorkload(BlockPool kv, long seed) {
    this(kv, seed, "r");
  }

  /** A workload whose request ids start with {@code prefix}, so several can share one cache. */
  public DynamoWorkload(BlockPool kv, long seed, String prefix) {
    this.kv = new TokenRequests(kv);
    this.blockSize = kv.blockSize();
    this.prefix = prefix;
    this.random = new SplittableRandom(seed);
    for (int d = 0; d < 6; d++) {
      int[] doc = new int[blockSize * 12];
      for (int i = 0; i < doc.length; i++) {
        doc[i] = random.nextInt(50_000);
      }
      documents.add(doc);
    }
  }

  /** One random operation. */
  public void step() {
    int op = random.nextInt(100);
    if (op < 45 || running.isEmpty()) {
      int[] doc = documents.get(random.nextInt(documents.size()));
      int shared = random.nextInt(doc.length + 1);
      int[] prompt = Arrays.copyOf(doc, shared + random.nextInt(2 * blockSize));
      for (int i = shared; i < prompt.length; i++) {
        prompt[i] = random.nextInt(50_000);
      }
      String id = this.prefix + nextRequest++;
      if (kv.allocate(id, prompt).allocated()) {
        running.put(id, prompt);
      }
    } else if (op < 70) {
      String id = pick();
      int[] tokens = running.get(id);
      int[] longer = Arrays.copyOf(tokens, tokens.length + 1 + random.nextInt(blockSize * 2));
      for (int i = tokens.length; i < longer.length; i++) {
        longer[i] = random.nextInt(50_000);
      }
      kv.extend(id, longer);
      running.put(id, longer);
    } else if (op < 98) {
      String id = pick();
      kv.release(id);
      running.remove(id);
    } else {
      for (String id : running.keySet()) {
        kv.release(id);
      }
      running.clear();
      kv.clear();
    }
  }

  private String pick() {
    List<String> ids = new ArrayList<>(running.keySet());
    ids.sort(null);
    return ids.get(random.nextInt(ids.size()));
  }

  /** (engine hash, router local hash of its tokens) of every block {@code snapshot} holds. */
  public static Set<List<Long>> blocksOf(KvCacheSnapshot snapshot) {
    BlockHasher hasher = BlockHasher.of(snapshot.blockSize());
    Set<List<Long>> out = new HashSet<>();
    for (KvCacheSnapshot.CachedBlock block : snapshot.blocks()) {
      out.add(List.of(block.hash(), hasher.localHash(block.tokens(), 0)));
    }
    return out;
  }

  /** The same pairs as held by {@code indexer}, read back through its own dump. */
  public static Set<List<Long>> blocksOf(KvIndexer indexer) {
    indexer.flush().toCompletableFuture().join();
    List<RouterEvent> dump = indexer.dump().toCompletableFuture().join();
    Map<Long, Long> blocks = new HashMap<>();
    for (RouterEvent e : dump) {
      replay(blocks, e.event());
    }
    Set<List<Long>> out = new HashSet<>();
    blocks.forEach((hash, tokens) -> out.add(List.of(hash, tokens)));
    return out;
  }

  /** The pairs of a hash → tokens hash map. */
  public static Set<List<Long>> blocksOf(Map<Long, Long> blocks) {
    Set<List<Long>> out = new HashSet<>();
    blocks.forEach((hash, tokens) -> out.add(List.of(hash, tokens)));
    return out;
  }

  /** The pairs a list of events (e.g. a tree dump) describes, replayed from nothing. */
  public static Set<List<Long>> blocksOf(List<DynamoRouterEvent> events) {
    Map<Long, Long> blocks = new HashMap<>();
    for (DynamoRouterEvent e : events) {
      replay(blocks, e.event().event());
    }
    Set<List<Long>> out = new HashSet<>();
    blocks.forEach((hash, tokens) -> out.add(List.of(hash, tokens)));
    return out;
  }

  public static void replay(Map<Long, Long> blocks, KvCacheEvent event) {
    if (event instanceof KvCacheEvent.Stored stored) {
      for (StoredBlock b : stored.blocks()) {
        blocks.put(b.blockHash(), b.tokensHash());
      }
    } else if (event instanceof KvCacheEvent.Removed removed) {
      removed.blockHashes().forEach(blocks::remove);
    } else {
      blocks.clear();
    }
  }
}
