package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.Events;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.InvalidRange;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.TooNew;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult.TreeDump;
import io.kvrouter.protocol.hash.BlockHasher;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.testing.DynamoWorkload;
import io.kvrouter.testing.TokenRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link WorkerKvEventLog}: conversion, numbering, listeners and each rule of the query. */
class WorkerKvEventLogTest {
  private static final WorkerRank RANK = new WorkerRank("7", 1);
  private static final int BS = 4;
  private static final BlockHasher HASHER = BlockHasher.of(BS);

  private static int[] range(int from, int to) {
    return IntStream.range(from, to).toArray();
  }

  /** Event n stores block 100+n under block 100+n-1 (a root for n = 0). */
  private static WorkerKvEventLog logWithEvents(int count, int buffer) {
    WorkerKvEventLog log = new WorkerKvEventLog(RANK, BS, buffer);
    for (int n = 0; n < count; n++) {
      log.onEvents(
          List.of(
              BlockStored.of(
                  List.of(100L + n),
                  n == 0 ? null : 100L + n - 1,
                  range(n * BS, (n + 1) * BS),
                  BS)));
    }
    return log;
  }

  private static List<Long> ids(List<DynamoRouterEvent> events) {
    return events.stream().map(DynamoRouterEvent::eventId).toList();
  }

  @Test
  void storedEvents_becomeDynamosForm_withTheRoutersTokensHash_numberedFromZero() {
    BlockPool pool = new BlockPool(16, BS);
    TokenRequests kv = new TokenRequests(pool);
    WorkerKvEventLog log = WorkerKvEventLog.attach(pool, RANK);
    List<DynamoRouterEvent> published = new ArrayList<>();
    assertThat(log.subscribe(published::add)).isEqualTo(-1);

    int[] prompt = range(0, 10); // two full blocks, two tokens left over
    kv.allocate("a", prompt);
    KvCacheSnapshot snap = pool.snapshot();
    long h0 = snap.blocks().get(0).hash();
    long h1 = snap.blocks().get(1).hash();
    kv.release("a");
    kv.clear();

    assertThat(published).hasSize(2);
    assertThat(published.get(0))
        .isEqualTo(
            new DynamoRouterEvent(
                new io.kvrouter.protocol.RouterEvent(
                    RANK,
                    KvCacheEvent.stored(
                        null,
                        new StoredBlock(h0, HASHER.localHash(prompt, 0)),
                        new StoredBlock(h1, HASHER.localHash(prompt, BS)))),
                0));
    assertThat(published.get(1).event().event()).isEqualTo(KvCacheEvent.cleared());
    assertThat(published.get(1).eventId()).isEqualTo(1);
    assertThat(log.newestEventId()).isEqualTo(1);
    assertThat(log.query(0L, null)).isEqualTo(new Events(published));
  }

  @Test
  void saltedRequests_areCachedApart_andTheirEventsCarryTheSaltAsVllmAndDynamoDo() {
    BlockPool pool = new BlockPool(16, BS);
    TokenRequests kv = new TokenRequests(pool);
    List<VllmEvent> vllm = new ArrayList<>();
    pool.subscribe(new VllmEvents(vllm::addAll));
    WorkerKvEventLog log = WorkerKvEventLog.attach(pool, RANK);
    List<DynamoRouterEvent> published = new ArrayList<>();
    log.subscribe(published::add);
    String salt = "dynamo-cache-salt:tenant-a";

    int[] prompt = range(0, 8);
    assertThat(kv.allocate("a", prompt, salt).cachedBlocks()).isZero();
    assertThat(kv.allocate("b", prompt).cachedBlocks()).as("unsalted: no reuse").isZero();
    assertThat(kv.allocate("c", prompt, "dynamo-cache-salt:tenant-b").cachedBlocks())
        .as("another salt: no reuse")
        .isZero();
    assertThat(kv.allocate("d", prompt, salt).cachedBlocks()).as("same salt").isEqualTo(2);
    // the salted sequence grows one block, stored under its parent without a salt of its own
    kv.extend("a", range(0, 12));

    // vLLM's form: the salt in the first block's extra keys only, and nowhere in a continuation
    BlockStored first = (BlockStored) vllm.get(0);
    assertThat(first.extraKeys()).containsExactly(List.of(salt), null);
    BlockStored unsalted = (BlockStored) vllm.get(1);
    assertThat(unsalted.extraKeys()).isNull();
    BlockStored continued = (BlockStored) vllm.get(vllm.size() - 1);
    assertThat(continued.parentBlockHash()).isEqualTo(first.blockHashes().get(1));
    assertThat(continued.extraKeys()).isNull();

    // Dynamo's form: tokens_hash under the namespace, the continuation's too
    BlockHasher tenantA = BlockHasher.of(BS, null, "tenant-a");
    KvCacheEvent.Stored a = (KvCacheEvent.Stored) published.get(0).event().event();
    assertThat(a.blocks().get(0).tokensHash()).isEqualTo(tenantA.localHash(prompt, 0));
    assertThat(a.blocks().get(1).tokensHash()).isEqualTo(tenantA.localHash(prompt, BS));
    KvCacheEvent.Stored b = (KvCacheEvent.Stored) published.get(1).event().event();
    assertThat(b.blocks().get(0).tokensHash()).isEqualTo(HASHER.localHash(prompt, 0));
    KvCacheEvent.Stored c = (KvCacheEvent.Stored) published.get(2).event().event();
    assertThat(c.blocks().get(0).tokensHash())
        .isEqualTo(BlockHasher.of(BS, null, "tenant-b").localHash(prompt, 0));
    KvCacheEvent.Stored more =
        (KvCacheEvent.Stored) published.get(published.size() - 1).event().event();
    assertThat(more.blocks().get(0).tokensHash()).isEqualTo(tenantA.localHash(range(0, 12), 8));

    // a log attached to the cache as it is now seeds the same hashes from the snapshot
    WorkerKvEventLog late = WorkerKvEventLog.attach(pool, RANK);
    assertThat(tokensHashes(late)).isEqualTo(tokensHashes(log));
  }

  @Test
  void aSaltedRequestsEvents_areByteForByteTheGoldenVllmPayload() throws Exception {
    BlockPool pool = new BlockPool(16, 16);
    TokenRequests kv = new TokenRequests(pool);
    List<VllmEvent> vllm = new ArrayList<>();
    pool.subscribe(new VllmEvents(vllm::addAll));

    kv.allocate("a", range(0, 32), "dynamo-cache-salt:tenant-a");
    kv.extend("a", range(0, 48));

    byte[] golden;
    try (var in = getClass().getResourceAsStream("/golden/vllm/map_cache_salt.msgpack")) {
      golden = in.readAllBytes();
    }
    byte[] published =
        io.kvrouter.protocol.vllm.VllmEventCodec.encode(
            new io.kvrouter.protocol.vllm.VllmEventBatch(1767225610.0, vllm, 0),
            io.kvrouter.protocol.vllm.VllmEventCodec.Encoding.MAP);
    assertThat(java.util.HexFormat.of().formatHex(published))
        .isEqualTo(java.util.HexFormat.of().formatHex(golden));
  }

  private static java.util.Set<Long> tokensHashes(WorkerKvEventLog log) {
    java.util.Set<Long> hashes = new java.util.HashSet<>();
    for (DynamoRouterEvent event : ((TreeDump) log.query(null, null)).events()) {
      if (event.event().event() instanceof KvCacheEvent.Stored stored) {
        stored.blocks().forEach(block -> hashes.add(block.tokensHash()));
      }
    }
    return hashes;
  }

  @Test
  void conversion_cutsIncompleteBlocks_andSkipsOtherTiersAndBlockSizes() {
    WorkerKvEventLog log = new WorkerKvEventLog(RANK, BS, 8);
    assertThat(log.convert(BlockStored.of(List.of(1L, 2L, 3L), 9L, range(0, 6), BS)))
        .isEqualTo(KvCacheEvent.stored(9L, new StoredBlock(1, HASHER.localHash(range(0, 4), 0))));
    assertThat(log.convert(BlockStored.of(List.of(1L), null, range(0, 2), BS))).isNull();
    assertThat(log.convert(BlockStored.of(List.of(1L), null, range(0, 8), 8))).isNull();
    assertThat(
            log.convert(
                new BlockStored(List.of(1L), null, range(0, 4), BS, null, "CPU", null, null, null)))
        .isNull();
    assertThat(log.convert(new BlockRemoved(List.of(1L), "CPU", null))).isNull();
    assertThat(log.convert(new BlockRemoved(List.of(1L, 2L), null, null)))
        .isEqualTo(KvCacheEvent.removed(1, 2));
    assertThat(
            log.convert(
                new BlockStored(
                    List.of(1L), null, range(0, 4), BS, null, "GPU", "adapter-a", null, null)))
        .isEqualTo(
            KvCacheEvent.stored(
                null,
                new StoredBlock(1, BlockHasher.of(BS, "adapter-a").localHash(range(0, 4), 0))));
    log.onEvents(List.of(new BlockRemoved(List.of(1L), "CPU", null)));
    assertThat(log.newestEventId()).as("nothing published, no id used").isEqualTo(-1);
  }

  @Test
  void query_endBeforeStart_isInvalidRange() {
    WorkerKvEventLog log = logWithEvents(5, 8);
    assertThat(log.query(3L, 2L)).isEqualTo(new InvalidRange(3, 2));
    assertThat(new WorkerKvEventLog(RANK, BS, 8).query(3L, 2L)).isEqualTo(new InvalidRange(3, 2));
  }

  @Test
  void query_withoutStart_isATreeDump_ofTheWholeState_atTheNewestId() {
    WorkerKvEventLog log = logWithEvents(5, 3);
    TreeDump dump = (TreeDump) log.query(null, null);
    assertThat(dump.lastEventId()).isEqualTo(4);
    assertThat(ids(dump.events())).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    assertThat(dump.events().get(0).event().event()).isEqualTo(KvCacheEvent.cleared());
    assertThat(dump.events().get(1).event().event())
        .isEqualTo(
            KvCacheEvent.stored(null, new StoredBlock(100, HASHER.localHash(range(0, 4), 0))));
    assertThat(dump.events().get(5).event().event())
        .isEqualTo(
            KvCacheEvent.stored(103L, new StoredBlock(104, HASHER.localHash(range(16, 20), 0))));
    assertThat(dump.events()).allMatch(e -> e.event().worker().equals(RANK));
    assertThat(log.query(null, 2L)).isEqualTo(dump);
  }

  @Test
  void query_onAnEmptyBuffer_isATreeDump_withLastIdZero() {
    BlockPool pool = new BlockPool(16, BS);
    TokenRequests kv = new TokenRequests(pool);
    kv.allocate("a", range(0, 8)); // cached before the log attached: its starting state
    WorkerKvEventLog log = WorkerKvEventLog.attach(pool, RANK);
    TreeDump dump = (TreeDump) log.query(0L, null);
    assertThat(dump.lastEventId()).isZero();
    assertThat(DynamoWorkload.blocksOf(dump.events()))
        .isEqualTo(DynamoWorkload.blocksOf(pool.snapshot()));
    assertThat(log.query(5L, null)).isEqualTo(dump);
    assertThat(log.query(null, null)).isEqualTo(dump);

    kv.allocate("b", range(100, 104));
    assertThat(((Events) log.query(0L, null)).events()).hasSize(1);
  }

  @Test
  void query_afterTheNewest_isTooNew() {
    WorkerKvEventLog log = logWithEvents(5, 8);
    assertThat(log.query(5L, null)).isEqualTo(new TooNew(5, null, 4));
    assertThat(log.query(9L, 12L)).isEqualTo(new TooNew(9, 12L, 4));
    assertThat(log.query(-1L, null)).as("ids compare unsigned").isEqualTo(new TooNew(-1, null, 4));
  }

  @Test
  void query_beforeTheOldestBuffered_isATreeDump_atTheNewestId() {
    WorkerKvEventLog log = logWithEvents(10, 4); // keeps 6..9
    WorkerKvQueryResult result = log.query(5L, 7L);
    assertThat(result).isInstanceOf(TreeDump.class);
    assertThat(((TreeDump) result).lastEventId()).isEqualTo(9);
    assertThat(((TreeDump) result).events()).hasSize(11);
    assertThat(log.query(6L, 6L)).isInstanceOf(Events.class);
  }

  @Test
  void query_insideTheBuffer_isTheSlice_withEndClampedToTheNewest() {
    WorkerKvEventLog log = logWithEvents(10, 4); // keeps 6..9
    assertThat(ids(((Events) log.query(6L, 7L)).events())).containsExactly(6L, 7L);
    assertThat(ids(((Events) log.query(7L, 7L)).events())).containsExactly(7L);
    assertThat(ids(((Events) log.query(8L, null)).events())).containsExactly(8L, 9L);
    assertThat(ids(((Events) log.query(6L, 1000L)).events())).containsExactly(6L, 7L, 8L, 9L);
    assertThat(ids(((Events) log.query(9L, -1L)).events())).containsExactly(9L);
    DynamoRouterEvent nine = ((Events) log.query(9L, 9L)).events().get(0);
    assertThat(nine.event().event())
        .isEqualTo(
            KvCacheEvent.stored(108L, new StoredBlock(109, HASHER.localHash(range(36, 40), 0))));
  }

  @Test
  void subscribe_returnsTheLastIdTheListenerWillNotGet() {
    WorkerKvEventLog log = logWithEvents(3, 8);
    List<DynamoRouterEvent> got = new ArrayList<>();
    assertThat(log.subscribe(got::add)).isEqualTo(2);
    log.onEvents(List.of(new VllmEvent.AllBlocksCleared()));
    assertThat(ids(got)).containsExactly(3L);
    log.unsubscribe(got::add); // a different lambda instance: still subscribed
    log.onEvents(List.of(new VllmEvent.AllBlocksCleared()));
    assertThat(ids(got)).containsExactly(3L, 4L);
  }

  @Test
  void close_stopsFollowingTheManager() {
    BlockPool pool = new BlockPool(16, BS);
    TokenRequests kv = new TokenRequests(pool);
    WorkerKvEventLog log = WorkerKvEventLog.attach(pool, RANK);
    kv.allocate("a", range(0, 4));
    log.close();
    kv.allocate("b", range(10, 14));
    assertThat(log.newestEventId()).isZero();
  }

  @Test
  void constructor_rejectsAnEmptyBuffer() {
    assertThatThrownBy(() -> new WorkerKvEventLog(RANK, BS, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bufferSize");
  }
}
