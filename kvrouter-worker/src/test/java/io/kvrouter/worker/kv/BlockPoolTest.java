package io.kvrouter.worker.kv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEvent.AllBlocksCleared;
import io.kvrouter.protocol.vllm.VllmEvent.BlockRemoved;
import io.kvrouter.protocol.vllm.VllmEvent.BlockStored;
import io.kvrouter.testing.TokenRequests;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockPool}: as the fixed-pace worker drives it (allocate, extend, release, clear, with
 * vLLM's events), then as the engine's scheduler does (admit, hold, commit, with Dynamo's).
 */
class BlockPoolTest {
  private static final int BS = 4;

  private final List<List<VllmEvent>> batches = new CopyOnWriteArrayList<>();

  private TokenRequests manager(int capacity) {
    BlockPool pool = new BlockPool(capacity, BS);
    pool.subscribe(new VllmEvents(batches::add));
    return new TokenRequests(pool);
  }

  private static int[] range(int from, int to) {
    return IntStream.range(from, to).toArray();
  }

  private static long hash(int[] tokens, int block) {
    return new VllmBlockHasher(BS).hashBlocks(tokens).get(block).value();
  }

  private List<VllmEvent> takeBatch() {
    assertThat(batches).hasSize(1);
    return batches.remove(0);
  }

  @Test
  void allocate_storesThePromptsFullBlocksInOneEvent() {
    TokenRequests kv = manager(10);
    int[] prompt = range(0, 10); // two full blocks and a partial one

    KvAllocation result = kv.allocate("a", prompt);

    assertThat(result).isEqualTo(new KvAllocation(true, 0, 2, 10));
    assertThat(takeBatch())
        .containsExactly(
            BlockStored.of(List.of(hash(prompt, 0), hash(prompt, 1)), null, range(0, 8), BS));
    KvCacheSnapshot snapshot = kv.pool().snapshot();
    assertThat(snapshot.activeBlocks()).isEqualTo(2);
    assertThat(snapshot.inactiveBlocks()).isZero();
    assertThat(snapshot.blocks())
        .containsExactly(
            new KvCacheSnapshot.CachedBlock(hash(prompt, 0), null, range(0, 4), 1),
            new KvCacheSnapshot.CachedBlock(hash(prompt, 1), hash(prompt, 0), range(4, 8), 1));
  }

  @Test
  void sharedPrefix_isReused_andOnlyTheNewTailIsStored_withTheLastPrefixBlockAsParent() {
    TokenRequests kv = manager(10);
    int[] first = range(0, 8);
    int[] second = {0, 1, 2, 3, 4, 5, 6, 7, 100, 101, 102, 103};
    kv.allocate("a", first);
    batches.clear();

    KvAllocation result = kv.allocate("b", second);

    assertThat(result.cachedBlocks()).isEqualTo(2);
    assertThat(result.newBlocks()).isEqualTo(1);
    assertThat(takeBatch())
        .containsExactly(
            BlockStored.of(
                List.of(hash(second, 2)), hash(first, 1), new int[] {100, 101, 102, 103}, BS));
    assertThat(kv.pool().snapshot().blocks())
        .extracting(KvCacheSnapshot.CachedBlock::references)
        .containsExactly(2, 2, 1);
  }

  @Test
  void fullCacheHit_emitsNothing() {
    TokenRequests kv = manager(10);
    kv.allocate("a", range(0, 8));
    kv.release("a");
    batches.clear();

    assertThat(kv.allocate("b", range(0, 9))).isEqualTo(new KvAllocation(true, 2, 0, 8));
    assertThat(batches).isEmpty();
    assertThat(kv.pool().snapshot().inactiveBlocks()).isZero();
  }

  @Test
  void release_makesBlocksInactive_tailFirst_withoutEvents() {
    TokenRequests kv = manager(10);
    int[] prompt = range(0, 12);
    kv.allocate("a", prompt);
    batches.clear();

    assertThat(kv.release("a")).isTrue();
    assertThat(kv.release("a")).isFalse();

    assertThat(batches).isEmpty();
    KvCacheSnapshot snapshot = kv.pool().snapshot();
    assertThat(snapshot.activeBlocks()).isZero();
    assertThat(snapshot.evictionOrder())
        .containsExactly(hash(prompt, 2), hash(prompt, 1), hash(prompt, 0));
  }

  @Test
  void fullCache_evictsTheLeastRecentlyReleasedBlock_andSaysSo() {
    TokenRequests kv = manager(3);
    int[] a = range(0, 8);
    int[] b = range(100, 104);
    kv.allocate("a", a);
    kv.release("a"); // inactive: a1 then a0
    kv.allocate("b", b);
    kv.release("b"); // inactive: a1, a0, b0
    batches.clear();

    int[] c = range(200, 208);
    assertThat(kv.allocate("c", c).allocated()).isTrue();

    assertThat(takeBatch())
        .containsExactly(
            BlockRemoved.of(List.of(hash(a, 1))),
            BlockRemoved.of(List.of(hash(a, 0))),
            BlockStored.of(List.of(hash(c, 0), hash(c, 1)), null, c, BS));
    assertThat(kv.pool().snapshot().hashes())
        .containsExactlyInAnyOrder(hash(b, 0), hash(c, 0), hash(c, 1));
  }

  @Test
  void allocationThatDoesNotFit_changesNothing_andSaysWhy() {
    TokenRequests kv = manager(3);
    kv.allocate("a", range(0, 8));
    kv.allocate("b", range(100, 104));
    kv.release("b");
    KvCacheSnapshot before = kv.pool().snapshot();
    batches.clear();

    KvAllocation result = kv.allocate("c", range(200, 212));

    assertThat(result).isEqualTo(new KvAllocation(false, 0, 3, 1));
    assertThat(result.refusal()).isEqualTo("KV cache full: 3 blocks needed, 1 free");
    assertThat(batches).isEmpty();
    assertThat(kv.pool().snapshot()).isEqualTo(before);
    assertThat(kv.release("c")).isFalse();
  }

  @Test
  void promptLargerThanTheCache_isRefused() {
    TokenRequests kv = manager(2);
    KvAllocation result = kv.allocate("a", range(0, 12));
    assertThat(result.allocated()).isFalse();
    assertThat(result.refusal()).isEqualTo("KV cache full: 3 blocks needed, 2 free");
    assertThat(kv.pool().snapshot().blocks()).isEmpty();
  }

  @Test
  void aSequencesOwnInactiveBlocks_areReused_notEvictedForIt() {
    TokenRequests kv = manager(3);
    int[] prompt = range(0, 8);
    kv.allocate("a", prompt);
    kv.release("a"); // two inactive blocks; one slot empty
    batches.clear();

    int[] longer = range(0, 16); // reuses both, needs two more: one empty slot is not enough
    assertThat(kv.allocate("b", longer)).isEqualTo(new KvAllocation(false, 2, 2, 1));
    assertThat(kv.pool().snapshot().inactiveBlocks()).isEqualTo(2);

    int[] fits = range(0, 12);
    assertThat(kv.allocate("c", fits)).isEqualTo(new KvAllocation(true, 2, 1, 1));
    assertThat(takeBatch())
        .containsExactly(BlockStored.of(List.of(hash(fits, 2)), hash(fits, 1), range(8, 12), BS));
  }

  @Test
  void activeBlocks_areNeverEvicted() {
    TokenRequests kv = manager(2);
    kv.allocate("a", range(0, 8));
    assertThat(kv.allocate("b", range(100, 104)).allocated()).isFalse();
    assertThat(kv.pool().snapshot().activeBlocks()).isEqualTo(2);
  }

  @Test
  void extend_cachesEachBlockOutputFills_chainedToThePrompt() {
    TokenRequests kv = manager(10);
    int[] sequence = {0, 1, 2, 3, 4, 5, 50, 51, 52, 53, 54};
    kv.allocate("a", java.util.Arrays.copyOf(sequence, 6));
    batches.clear();

    assertThat(kv.extend("a", sequence, 7).newBlocks()).isZero(); // block 1 not full yet
    assertThat(batches).isEmpty();
    assertThat(kv.extend("a", sequence, 8).newBlocks()).isEqualTo(1);
    assertThat(takeBatch())
        .containsExactly(
            BlockStored.of(
                List.of(hash(sequence, 1)), hash(sequence, 0), new int[] {4, 5, 50, 51}, BS));
    assertThat(kv.extend("a", sequence).newBlocks()).isZero();

    kv.release("a");
    assertThat(kv.pool().snapshot().evictionOrder())
        .containsExactly(hash(sequence, 1), hash(sequence, 0));
  }

  @Test
  void extend_thatDoesNotFit_stopsCachingForTheRequest() {
    TokenRequests kv = manager(2);
    int[] sequence = range(0, 16);
    kv.allocate("a", range(0, 8));
    batches.clear();

    assertThat(kv.extend("a", sequence, 12).allocated()).isFalse();
    assertThat(kv.extend("a", sequence, 16).allocated()).isFalse();
    assertThat(batches).isEmpty();
    kv.release("a");
    assertThat(kv.pool().snapshot().inactiveBlocks()).isEqualTo(2);
  }

  @Test
  void extend_reusesABlockAnotherRequestAlreadyCached() {
    TokenRequests kv = manager(10);
    kv.allocate("a", range(0, 8));
    kv.allocate("b", range(0, 4));
    batches.clear();

    assertThat(kv.extend("b", range(0, 8))).isEqualTo(new KvAllocation(true, 1, 0, 8));
    assertThat(batches).isEmpty();
    assertThat(kv.pool().snapshot().blocks())
        .extracting(KvCacheSnapshot.CachedBlock::references)
        .containsExactly(2, 2);
  }

  @Test
  void extendOrDuplicateAllocate_ofTheWrongRequest_isAnError() {
    TokenRequests kv = manager(10);
    assertThatThrownBy(() -> kv.extend("nobody", range(0, 8)))
        .isInstanceOf(IllegalStateException.class);
    kv.allocate("a", range(0, 4));
    assertThatThrownBy(() -> kv.allocate("a", range(0, 4)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void clear_onlyWhenNothingRuns_dropsEverything_andEmitsAllBlocksCleared() {
    TokenRequests kv = manager(10);
    kv.allocate("a", range(0, 8));
    batches.clear();

    assertThat(kv.clear()).isFalse();
    assertThat(batches).isEmpty();
    assertThat(kv.pool().snapshot().blocks()).hasSize(2);

    kv.release("a");
    assertThat(kv.clear()).isTrue();
    assertThat(takeBatch()).containsExactly(new AllBlocksCleared());
    assertThat(kv.pool().snapshot().blocks()).isEmpty();
    assertThat(kv.pool().snapshot().evictionOrder()).isEmpty();

    kv.allocate("b", range(0, 4));
    assertThat(takeBatch()).hasSize(1).first().isInstanceOf(BlockStored.class);
  }

  @Test
  void subscribe_returnsTheStateTheEventsStartFrom_andUnsubscribeStopsDelivery() {
    TokenRequests kv = new TokenRequests(new BlockPool(10, BS));
    kv.allocate("a", range(0, 8));
    List<List<VllmEvent>> seen = new ArrayList<>();
    BlockPoolListener listener = new VllmEvents(seen::add);

    KvCacheSnapshot start = kv.pool().subscribe(listener);
    kv.allocate("b", range(100, 104));
    kv.pool().unsubscribe(listener);
    kv.allocate("c", range(200, 204));

    assertThat(start.blocks()).hasSize(2);
    assertThat(seen).hasSize(1);
    assertThat(((BlockStored) seen.get(0).get(0)).tokenIds()).containsExactly(100, 101, 102, 103);
  }

  @Test
  void aListenerThatCallsBack_seesItsOwnChangesAfterTheCurrentBatch() {
    TokenRequests kv = new TokenRequests(new BlockPool(10, BS));
    List<String> order = new ArrayList<>();
    kv.pool()
        .subscribe(
            new VllmEvents(
                events -> {
                  BlockStored stored = (BlockStored) events.get(0);
                  order.add("stored " + stored.tokenIds()[0]);
                  if (stored.tokenIds()[0] == 0) {
                    kv.allocate("nested", range(100, 104));
                    order.add("nested returned");
                  }
                }));
    kv.allocate("a", range(0, 4));
    assertThat(order).containsExactly("stored 0", "nested returned", "stored 100");
  }

  @Test
  void aFailingListener_doesNotStopDelivery() {
    TokenRequests kv = new TokenRequests(new BlockPool(10, BS));
    kv.pool()
        .subscribe(
            changes -> {
              throw new IllegalStateException("boom");
            });
    kv.pool().subscribe(new VllmEvents(batches::add));
    kv.allocate("a", range(0, 4));
    kv.allocate("b", range(100, 104));
    assertThat(batches).hasSize(2);
  }

  @Test
  void rejectsBadSizes() {
    assertThatThrownBy(() -> new BlockPool(0, 16)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new BlockPool(16, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  // As the engine's scheduler drives it: admit, reserve, commit as computed, release.

  private final List<KvCacheEvent> dynamoEvents = new ArrayList<>();

  private BlockPool engineCache(int capacity) {
    BlockPool pool = new BlockPool(capacity, BS);
    pool.subscribe(new DynamoEvents(dynamoEvents::add));
    return pool;
  }

  /** A prompt known by its hashes: block i has sequence hash {@code first + i}, local hash +500. */
  private static DynamoSequence hashed(long first, int blocks) {
    long[] sequence = LongStream.range(first, first + blocks).toArray();
    return new DynamoSequence(sequence, LongStream.of(sequence).map(h -> h + 500).toArray(), first);
  }

  private static KvCacheEvent.StoredBlock stored(long hash) {
    return new KvCacheEvent.StoredBlock(hash, hash + 500);
  }

  @Test
  void admit_reservesSlots_commitStoresTheBlocksAsComputed_andTheNextRequestReusesThem() {
    BlockPool pool = engineCache(10);

    assertThat(pool.admit("a", hashed(1, 3), 3, 4, 10)).isEqualTo(new KvAllocation(true, 0, 4, 10));
    assertThat(dynamoEvents).isEmpty();
    assertThat(pool.activeBlocks()).isEqualTo(4);
    assertThat(pool.snapshot().blocks()).isEmpty();

    pool.commit("a", hashed(1, 3), 2);
    pool.commit("a", hashed(1, 3), 2); // held already: nothing
    assertThat(dynamoEvents).containsExactly(KvCacheEvent.stored(null, stored(1), stored(2)));
    assertThat(pool.usedBlocks()).isEqualTo(4);

    assertThat(pool.release("a")).isTrue();
    assertThat(pool.activeBlocks()).isZero();
    assertThat(pool.usedBlocks()).as("the reserved slots are given back").isEqualTo(2);
    assertThat(pool.snapshot().evictionOrder()).containsExactly(2L, 1L);

    // the same prompt: both blocks reused, reactivated (not free for others), no event
    assertThat(pool.admit("b", hashed(1, 3), 2, 3, 10)).isEqualTo(new KvAllocation(true, 2, 1, 8));
    assertThat(dynamoEvents).hasSize(1);
    assertThat(pool.snapshot().evictionOrder()).isEmpty();
  }

  @Test
  void admit_isAllOrNothing_withinTheActiveLimit_andWhatEvictionCanFree() {
    BlockPool pool = engineCache(4);
    pool.admit("a", hashed(1, 2), 2, 3, 4);

    assertThat(pool.admit("b", hashed(100, 2), 2, 2, 4))
        .isEqualTo(new KvAllocation(false, 0, 2, 1));
    assertThat(pool.admit("c", hashed(200, 1), 1, 1, 3))
        .as("one slot is free, but the limit is 3 active")
        .isEqualTo(new KvAllocation(false, 0, 1, 1));
    assertThat(pool.activeRequests()).isEqualTo(1);
    assertThat(pool.activeBlocks()).isEqualTo(3);
    assertThatThrownBy(() -> pool.admit("a", hashed(1, 2), 2, 3, 4))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void hold_reservesWhatTheHolderLacks_evictingTheLeastRecentlyReleasedInOneRemoved() {
    BlockPool pool = engineCache(4);
    pool.admit("a", hashed(1, 3), 3, 3, 4);
    pool.commit("a", hashed(1, 3), 3);
    pool.release("a"); // inactive: 3, 2, 1
    pool.admit("b", hashed(100, 1), 0, 1, 4);
    dynamoEvents.clear();

    assertThat(pool.hold("b", 3)).isTrue();
    assertThat(dynamoEvents).containsExactly(KvCacheEvent.removed(3, 2));
    assertThat(pool.hold("b", 3)).as("held already").isTrue();
    assertThat(pool.hold("b", 5)).as("more than the cache").isFalse();
    assertThat(dynamoEvents).hasSize(1);
    assertThat(pool.usedBlocks()).isEqualTo(4);
    assertThatThrownBy(() -> pool.hold("nobody", 1)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void commit_sharesABlockAnotherRequestCachedMeanwhile_andFreesItsSlot() {
    BlockPool pool = engineCache(10);
    pool.admit("a", hashed(1, 3), 2, 3, 10);
    pool.admit("b", hashed(1, 3), 2, 3, 10); // nothing cached yet: b computes them too
    pool.commit("a", hashed(1, 3), 3);
    dynamoEvents.clear();

    pool.commit("b", hashed(1, 3), 3);

    assertThat(dynamoEvents).isEmpty();
    assertThat(pool.usedBlocks()).isEqualTo(3);
    assertThat(pool.snapshot().blocks())
        .extracting(KvCacheSnapshot.CachedBlock::references)
        .containsExactly(2, 2, 2);
  }

  @Test
  void commit_announcesEachRunOfNewBlocks_underTheBlockBeforeIt() {
    BlockPool pool = engineCache(10);
    pool.admit("a", hashed(7, 1), 1, 1, 10);
    pool.commit("a", hashed(7, 1), 1);
    DynamoSequence around = new DynamoSequence(new long[] {5, 7, 9}, new long[] {505, 507, 509}, 0);
    pool.admit("b", around, 0, 3, 10);
    dynamoEvents.clear();

    pool.commit("b", around, 3);

    assertThat(dynamoEvents)
        .containsExactly(KvCacheEvent.stored(null, stored(5)), KvCacheEvent.stored(7L, stored(9)));
    assertThatThrownBy(() -> pool.commit("b", around, 4))
        .as("no slot reserved for a fourth block")
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void eachFormat_refusesBlocksNamedForTheOther() {
    KvChange.Stored hashedOnly = new KvChange.Stored(null, List.of(new KvBlock.Dynamo(1, 2)));
    KvChange.Stored withTokens =
        new KvChange.Stored(null, List.of(new KvBlock.Vllm(1, range(0, 4))));

    assertThatThrownBy(() -> new VllmEvents(batches::add).onChanges(List.of(hashedOnly)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("known by its hashes only");
    assertThatThrownBy(() -> new DynamoEvents(dynamoEvents::add).onChanges(List.of(withTokens)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
