package io.kvrouter.routing.schedule;

import static io.kvrouter.routing.schedule.Fixtures.W1;
import static io.kvrouter.routing.schedule.Fixtures.W2;
import static io.kvrouter.routing.schedule.Fixtures.blocks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.WorkerRank;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ActiveSequencesTest {

  private final AtomicLong nanos = new AtomicLong();
  private ActiveSequences active;

  @BeforeEach
  void setUp() {
    active = ActiveSequences.create(nanos::get);
  }

  @Test
  void add_firstToken_free_accounting() {
    assertThat(active.add("r", W1, blocks(1, 3), 20)).isTrue();
    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 3, 20, 0));
    assertThat(active.isActive("r")).isTrue();

    assertThat(active.markPrefillDone("r")).isTrue();
    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 3, 0, 0));
    assertThat(active.markPrefillDone("r")).isFalse();
    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 3, 0, 0));

    assertThat(active.free("r")).isTrue();
    assertThat(active.load(W1)).isEqualTo(WorkerLoad.IDLE);
    assertThat(active.isActive("r")).isFalse();
    assertThat(active.free("r")).isFalse();
    assertThat(active.markPrefillDone("r")).isFalse();
    assertThat(active.loads()).isEmpty();
    assertThat(active.activeRequests()).isZero();
  }

  @Test
  void free_withoutFirstToken_dropsThePrefillToo() {
    active.add("a", W1, blocks(1, 2), 30);
    active.add("b", W1, blocks(10, 2), 50);

    active.free("a");

    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 2, 50, 0));
  }

  @Test
  void sharedBlocks_areCountedOnceAndFreedByTheLastHolder() {
    active.add("a", W1, new long[] {1, 2, 3}, 0);
    active.add("b", W1, new long[] {1, 2, 4}, 0);
    assertThat(active.load(W1).activeBlocks()).isEqualTo(4);

    active.free("a");
    assertThat(active.load(W1).activeBlocks()).isEqualTo(3);
    assertThat(active.load(W1, new long[] {1, 2, 3, 4}).newBlocks()).isEqualTo(1);

    active.free("b");
    assertThat(active.load(W1)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void ranks_areTrackedSeparately() {
    WorkerRank w1rank1 = new WorkerRank("w1", 1);
    active.add("a", W1, new long[] {1, 2}, 8);
    active.add("b", w1rank1, new long[] {1, 2}, 4);
    active.add("c", W2, new long[] {7}, 0);

    assertThat(active.loads())
        .isEqualTo(
            Map.of(
                W1, new WorkerLoad(1, 2, 8, 0),
                w1rank1, new WorkerLoad(1, 2, 4, 0),
                W2, new WorkerLoad(1, 1, 0, 0)));
  }

  @Test
  void load_countsRequestBlocksNotActive() {
    active.add("a", W1, new long[] {1, 2, 900}, 0);

    assertThat(active.load(W1, blocks(1, 5))).isEqualTo(new WorkerLoad(1, 3, 0, 3));
    assertThat(active.load(W2, blocks(1, 5))).isEqualTo(new WorkerLoad(0, 0, 0, 5));
  }

  @Test
  void add_sameIdTwice_booksOnce() {
    assertThat(active.add("r", W1, blocks(1, 3), 10)).isTrue();
    assertThat(active.add("r", W1, blocks(1, 3), 10)).isFalse();
    assertThat(active.add("r", W2, blocks(1, 3), 10)).isFalse();

    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 3, 10, 0));
    assertThat(active.load(W2)).isEqualTo(WorkerLoad.IDLE);
    assertThat(active.loads()).containsOnlyKeys(W1);

    active.free("r");
    assertThat(active.loads()).isEmpty();
  }

  @Test
  void add_copiesTheBlocks() {
    long[] hashes = {1, 2, 3};
    active.add("r", W1, hashes, 0);
    hashes[0] = 99;

    active.free("r");

    assertThat(active.load(W1)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void add_rejectsBadArguments() {
    assertThatThrownBy(() -> active.add("r", W1, new long[0], -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("prefillTokens");
    assertThatThrownBy(() -> active.add(null, W1, new long[0], 0))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> active.add("r", null, new long[0], 0))
        .isInstanceOf(NullPointerException.class);
    assertThat(active.activeRequests()).isZero();
  }

  @Test
  void sweep_freesOnlyRequestsOlderThanTheAge() {
    active.add("old", W1, new long[] {1, 2}, 10);
    nanos.set(Duration.ofSeconds(10).toNanos());
    active.add("young", W1, new long[] {2, 3}, 5);

    nanos.set(Duration.ofSeconds(61).toNanos());
    assertThat(active.sweep(Duration.ofSeconds(60))).isEqualTo(1);
    assertThat(active.isActive("old")).isFalse();
    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 2, 5, 0));

    nanos.set(Duration.ofSeconds(70).toNanos());
    assertThat(active.sweep(Duration.ofSeconds(60))).as("exactly 60 s old").isZero();
    nanos.incrementAndGet();
    assertThat(active.sweep(Duration.ofSeconds(60))).isEqualTo(1);
    assertThat(active.load(W1)).isEqualTo(WorkerLoad.IDLE);
    assertThat(active.loads()).isEmpty();
  }

  @Test
  void lateEvents_afterSweep_changeNothing() {
    active.add("r", W1, blocks(1, 4), 40);
    active.add("other", W1, blocks(3, 4), 7);
    nanos.set(100);
    active.markPrefillDone("other");
    active.add("fresh", W1, blocks(50, 1), 3);

    assertThat(active.sweep(Duration.ofNanos(50))).isEqualTo(2);
    assertThat(active.markPrefillDone("r")).isFalse();
    assertThat(active.free("r")).isFalse();
    assertThat(active.free("other")).isFalse();

    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 1, 3, 0));
  }

  @Test
  void sweep_afterFirstToken_doesNotSubtractThePrefillTwice() {
    active.add("a", W1, blocks(1, 1), 10);
    active.add("b", W1, blocks(2, 1), 20);
    active.markPrefillDone("a");
    nanos.set(10);

    active.sweep(Duration.ZERO);

    assertThat(active.load(W1)).isEqualTo(WorkerLoad.IDLE);
  }

  @Test
  void removeWorker_freesEveryRankOfThatWorkerOnly() {
    WorkerRank w1rank1 = new WorkerRank("w1", 1);
    active.add("a", W1, blocks(1, 2), 5);
    active.add("b", w1rank1, blocks(1, 2), 5);
    active.add("c", W2, blocks(1, 2), 5);

    assertThat(active.removeWorker("w1")).isEqualTo(2);

    assertThat(active.loads()).containsOnlyKeys(W2);
    assertThat(active.free("a")).isFalse();
    assertThat(active.isActive("c")).isTrue();
  }

  @Test
  void slot_canBeReusedAfterItEmptied() {
    active.add("a", W1, blocks(1, 2), 5);
    active.free("a");
    active.add("b", W1, blocks(1, 3), 6);

    assertThat(active.load(W1)).isEqualTo(new WorkerLoad(1, 3, 6, 0));
  }
}
