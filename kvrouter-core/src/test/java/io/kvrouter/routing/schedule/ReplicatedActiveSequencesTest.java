package io.kvrouter.routing.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.AddRequest;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Free;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.MarkPrefillCompleted;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.PrefillLoadHint;
import io.kvrouter.protocol.dynamo.ActiveSequenceEventCodec;
import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicatedActiveSequencesTest {
  private static final WorkerRank W1 = new WorkerRank("1", 0);
  private static final WorkerRank W2 = new WorkerRank("2", 0);

  private final ManualTicker ticker = new ManualTicker();
  private final List<ActiveSequenceEvent> sentByA = new ArrayList<>();
  private final ReplicatedActiveSequences a = router(10, sentByA);
  private final List<ActiveSequenceEvent> sentByB = new ArrayList<>();
  private final ReplicatedActiveSequences b = router(20, sentByB);

  private ReplicatedActiveSequences router(long id, List<ActiveSequenceEvent> outbox) {
    return new ReplicatedActiveSequences(ActiveSequences.create(ticker), id, outbox::add, ticker);
  }

  /** Delivers what each router sent to the other, through the wire form. */
  private void deliver() {
    for (ActiveSequenceEvent e : sentByA) {
      b.apply(ActiveSequenceEventCodec.decode(ActiveSequenceEventCodec.encode(e)));
    }
    for (ActiveSequenceEvent e : sentByB) {
      a.apply(ActiveSequenceEventCodec.decode(ActiveSequenceEventCodec.encode(e)));
    }
    sentByA.clear();
    sentByB.clear();
  }

  @Test
  void localChanges_areSentAsDynamosEvents() {
    a.add("q", W1, new long[] {5, 6}, 40);
    a.markPrefillDone("q");
    a.free("q");
    a.free("q");
    a.markPrefillDone("never");

    assertThat(sentByA)
        .containsExactly(
            new ActiveSequenceEvent(
                "q",
                W1,
                new AddRequest(new long[] {5, 6}, true, null, new PrefillLoadHint(40, null)),
                10,
                null,
                null),
            new ActiveSequenceEvent("q", W1, MarkPrefillCompleted.INSTANCE, 10, null, null),
            new ActiveSequenceEvent("q", W1, Free.INSTANCE, 10, null, null));
  }

  @Test
  void eachRoutersLoad_isTheFleets() {
    a.add("q", W1, new long[] {5, 6}, 40);
    b.add("r", W1, new long[] {6, 7}, 30);
    deliver();

    WorkerLoad expected = new WorkerLoad(2, 3, 70, 0);
    assertThat(a.load(W1)).isEqualTo(expected);
    assertThat(b.load(W1)).isEqualTo(expected);
    assertThat(b.load(W1, new long[] {5, 8}).newBlocks()).isEqualTo(1);

    a.markPrefillDone("q");
    deliver();
    assertThat(b.load(W1).activePrefillTokens()).isEqualTo(30);

    a.free("q");
    b.free("r");
    deliver();
    assertThat(a.loads()).isEmpty();
    assertThat(b.loads()).isEmpty();
  }

  @Test
  void theSameRequestIdOnTwoRouters_areTwoRequests() {
    a.add("q", W1, new long[] {1}, 10);
    b.add("q", W2, new long[] {2}, 20);
    deliver();

    assertThat(a.activeRequests()).isEqualTo(2);
    a.free("q");
    deliver();
    assertThat(b.load(W1)).isEqualTo(WorkerLoad.IDLE);
    assertThat(b.load(W2).activeRequests()).isEqualTo(1);
    assertThat(b.isActive("q")).isTrue();
  }

  @Test
  void ownEventsAndOtherStrides_areIgnored() {
    a.add("q", W1, new long[] {1}, 10);
    a.apply(sentByA.get(0));
    b.apply(
        new ActiveSequenceEvent(
            "s", W1, new AddRequest(new long[] {1}, true, null, null), 30, 4, null));

    assertThat(a.activeRequests()).isEqualTo(1);
    assertThat(b.activeRequests()).isZero();
  }

  @Test
  void outOfOrder_freeBeforeAddBooksNothing_markBeforeAddBooksNoPrefill() {
    a.add("q", W1, new long[] {1}, 10);
    a.free("q");
    a.add("p", W1, new long[] {2}, 20);
    a.markPrefillDone("p");
    List<ActiveSequenceEvent> reversed = new ArrayList<>(sentByA);
    java.util.Collections.reverse(reversed);
    reversed.forEach(b::apply);

    assertThat(b.activeRequests()).isEqualTo(1);
    assertThat(b.load(W1)).isEqualTo(new WorkerLoad(1, 1, 0, 0));
  }

  @Test
  void aLostFree_leaksNothingPastTheSweep_andTombstonesExpire() {
    a.add("q", W1, new long[] {1}, 10);
    sentByA.forEach(b::apply);
    sentByA.clear();
    ticker.advance(Duration.ofSeconds(61));
    assertThat(b.sweep(Duration.ofSeconds(60))).isEqualTo(1);
    assertThat(b.loads()).isEmpty();

    b.apply(new ActiveSequenceEvent("late", W1, Free.INSTANCE, 10, null, null));
    ticker.advance(ReplicatedActiveSequences.REORDER_WINDOW.plusSeconds(1));
    b.sweep(Duration.ofHours(1));
    b.apply(
        new ActiveSequenceEvent(
            "late", W1, new AddRequest(null, true, null, null), 10, null, null));
    assertThat(b.activeRequests()).as("the tombstone expired").isEqualTo(1);
  }

  @Test
  void sweptAndRemovedLocalRequests_sendNoFreeLater() {
    a.add("q", W1, new long[] {1}, 10);
    a.add("r", W2, new long[] {2}, 10);
    ticker.advance(Duration.ofSeconds(61));
    a.sweep(Duration.ofSeconds(60));
    sentByA.clear();

    assertThat(a.free("q")).isFalse();
    assertThat(sentByA).isEmpty();
  }
}
