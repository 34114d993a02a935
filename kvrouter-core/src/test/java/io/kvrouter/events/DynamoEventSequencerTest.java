package io.kvrouter.events;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The recovery rules of {@link DynamoEventSequencer}, driven by hand on a {@link ManualTicker}:
 * what the follower would receive goes in, and what the sequencer asks for is recorded as a log of
 * {@code clear}, {@code apply N} (each event here removes one block, which names it), {@code ask
 * S..E} and {@code ask dump}. Time passes only when a test moves the clock.
 */
class DynamoEventSequencerTest {
  private static final WorkerRank RANK = new WorkerRank("7", 0);
  private static final Duration PROBE = Duration.ofSeconds(2);

  /** Events of a restarted worker name blocks from here, so the log tells the two apart. */
  private static final long RESTARTED = 1000;

  private final ManualTicker clock = new ManualTicker();
  private final List<String> log = new ArrayList<>();
  private final List<Long> questions = new ArrayList<>();

  private final DynamoEventSequencer.Output output =
      new DynamoEventSequencer.Output() {
        @Override
        public void apply(KvCacheEvent event) {
          log.add(
              event instanceof KvCacheEvent.Removed removed
                  ? "apply " + removed.blockHashes().get(0)
                  : "clear");
        }

        @Override
        public void ask(long question, Long start, Long end) {
          questions.add(question);
          log.add(start == null ? "ask dump" : "ask " + start + ".." + (end == null ? "" : end));
        }
      };

  private DynamoEventSequencer sequencer(boolean atLeastOnce, int maxHeld) {
    return new DynamoEventSequencer(
        RANK,
        new DynamoEventSequencer.Settings(atLeastOnce, PROBE, maxHeld),
        output,
        clock.nanos());
  }

  private DynamoEventSequencer sequencer(boolean atLeastOnce) {
    return sequencer(atLeastOnce, DynamoEventSequencer.MAX_HELD);
  }

  /** An at-most-once sequencer (core NATS) that has applied events 0..last; the log is empty. */
  private DynamoEventSequencer following(long last) {
    return following(false, last);
  }

  private DynamoEventSequencer following(boolean atLeastOnce, long last) {
    DynamoEventSequencer sequencer = sequencer(atLeastOnce);
    live(sequencer, LongStream.rangeClosed(0, last).toArray());
    log.clear();
    return sequencer;
  }

  /** Event {@code id}, which removes block {@code block}. */
  private static DynamoRouterEvent event(long id, long block) {
    return new DynamoRouterEvent(new RouterEvent(RANK, KvCacheEvent.removed(block)), id);
  }

  private static DynamoRouterEvent event(long id) {
    return event(id, id);
  }

  private void live(DynamoEventSequencer sequencer, long... ids) {
    for (long id : ids) {
      sequencer.event(event(id), clock.nanos());
    }
  }

  /** Event {@code id} of the worker after a restart. */
  private void restarted(DynamoEventSequencer sequencer, long id) {
    sequencer.event(event(id, RESTARTED + id), clock.nanos());
  }

  private long lastQuestion() {
    return questions.get(questions.size() - 1);
  }

  /** Answers the question out. */
  private void answer(DynamoEventSequencer sequencer, WorkerKvQueryResult result) {
    sequencer.answered(lastQuestion(), result, clock.nanos());
  }

  /** The question out gets no answer. */
  private void fail(DynamoEventSequencer sequencer) {
    sequencer.unanswered(lastQuestion(), new IllegalStateException("no responders"), clock.nanos());
  }

  private static WorkerKvQueryResult.Events events(long... ids) {
    return new WorkerKvQueryResult.Events(LongStream.of(ids).mapToObj(id -> event(id)).toList());
  }

  /** A tree dump at {@code lastEventId} whose events remove {@code blocks} (dump ids 0, 1, …). */
  private static WorkerKvQueryResult.TreeDump dump(Long lastEventId, long... blocks) {
    List<DynamoRouterEvent> events = new ArrayList<>();
    for (int i = 0; i < blocks.length; i++) {
      events.add(event(i, blocks[i]));
    }
    return new WorkerKvQueryResult.TreeDump(events, lastEventId);
  }

  private void tick(DynamoEventSequencer sequencer, Duration after) {
    clock.advance(after);
    sequencer.tick(clock.nanos());
  }

  private KvEventFeed feed(DynamoEventSequencer sequencer) {
    return sequencer.feed(clock.nanos());
  }

  /** The rank is followed, its last event {@code lastSeq}. */
  private void assertFollowingAt(DynamoEventSequencer sequencer, long lastSeq) {
    assertThat(feed(sequencer))
        .extracting(KvEventFeed::state, KvEventFeed::lastSeq)
        .containsExactly(KvEventFeed.FOLLOWING, lastSeq);
  }

  @Test
  void fromEvent0_eachNextEventIsApplied_afterTheRankIsCleared() {
    DynamoEventSequencer sequencer = sequencer(false);
    live(sequencer, 0, 1, 2);

    assertThat(log).containsExactly("clear", "apply 0", "apply 1", "apply 2");
    assertThat(feed(sequencer)).isEqualTo(new KvEventFeed(KvEventFeed.FOLLOWING, 2, 3, 0, 0, 0, 0));
  }

  @Test
  void aRankJoinedMidStream_isRebuiltFromATreeDump_andTheHeldEventsFollowOn() {
    DynamoEventSequencer sequencer = sequencer(false);
    live(sequencer, 5, 6, 9);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.UNSYNCED);
    answer(sequencer, dump(6L, 100, 101));
    answer(sequencer, events(7, 8));

    assertThat(log)
        .containsExactly(
            "ask dump",
            "clear",
            "apply 100",
            "apply 101",
            "ask 7..8",
            "apply 7",
            "apply 8",
            "apply 9");
    assertThat(feed(sequencer).resets()).isEqualTo(1);
    assertThat(sequencer.duplicates()).as("5 and 6 were in the dump").isEqualTo(2);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.FOLLOWING);
  }

  @Test
  void resumedFromASnapshot_asksOnlyForWhatCameAfter_andFollowsOn() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.restore(6);
    sequencer.catchUp();
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.RECOVERING);
    assertThat(sequencer.position()).isEqualTo(6);
    live(sequencer, 9);
    answer(sequencer, events(7, 8));

    assertThat(log).containsExactly("ask 7..", "apply 7", "apply 8", "apply 9");
    assertFollowingAt(sequencer, 9);
    assertThat(feed(sequencer).resets()).as("no tree dump").isZero();
  }

  @Test
  void restoredFromASnapshot_holdsLiveEventsUntilCaughtUp_thenAppliesThoseThatFollowOn() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.restore(6);
    live(sequencer, 7);
    live(sequencer, 9);
    assertThat(log).as("its worker is not followed yet").isEmpty();
    assertThat(sequencer.isRestored()).isTrue();

    sequencer.catchUp();
    assertThat(log).containsExactly("apply 7", "ask 8..8");
    answer(sequencer, events(8));
    assertThat(log).containsExactly("apply 7", "ask 8..8", "apply 8", "apply 9");
    assertFollowingAt(sequencer, 9);
    assertThat(feed(sequencer).resets()).as("no tree dump").isZero();
  }

  @Test
  void restoredFromASnapshot_thenTheWorkerRestarted_asksForItsStateOnceFollowed() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.restore(6);
    live(sequencer, 0);
    assertThat(log).as("its worker is not followed yet").isEmpty();
    assertThat(sequencer.isRestored()).isFalse();
    sequencer.catchUp();
    assertThat(log).containsExactly("ask dump");

    log.clear();
    DynamoEventSequencer beforeEventZero = sequencer(false);
    beforeEventZero.restore(DynamoEventSequencer.NOTHING);
    live(beforeEventZero, 0); // the next event, not a restart
    beforeEventZero.catchUp();
    assertThat(log).containsExactly("apply 0", "ask 1..");

    log.clear();
    DynamoEventSequencer unknown = sequencer(false);
    unknown.catchUp();
    assertThat(log).as("a rank that was not restored starts over").containsExactly("ask dump");
  }

  @Test
  void resumedFromASnapshotTheWorkerNoLongerReaches_isRebuiltFromATreeDump() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.restore(6);
    sequencer.catchUp();
    answer(sequencer, events(20, 21)); // its buffer starts at 20: a hole after 6
    answer(sequencer, dump(21L, 100));

    assertThat(log).containsExactly("ask 7..", "ask dump", "clear", "apply 100");
    assertFollowingAt(sequencer, 21);
  }

  @Test
  void resumedFromASnapshot_withNothingNewer_followsFromThere() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.restore(6);
    sequencer.catchUp();
    answer(sequencer, new WorkerKvQueryResult.TooNew(7, null, 6));

    assertThat(log).containsExactly("ask 7..");
    assertFollowingAt(sequencer, 6);
  }

  @Test
  void aGap_holdsWhatFollows_andAsksForTheMissingEvents() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 4, 5);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.RECOVERING);
    answer(sequencer, events(2, 3));

    assertThat(log).containsExactly("ask 2..3", "apply 2", "apply 3", "apply 4", "apply 5");
    assertThat(feed(sequencer).gaps()).isEqualTo(1);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.FOLLOWING);
  }

  @Test
  void anAnswerShortOfTheGap_asksForATreeDump_notForTheSameAgain() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 3);
    answer(sequencer, events()); // the worker has nothing of the gap
    answer(sequencer, dump(0L));

    assertThat(log).containsExactly("ask 2..2", "ask dump", "clear");
    assertThat(questions).as("asked twice, not in a loop").hasSize(2);
  }

  @Test
  void anAnswerWithAHole_asksForATreeDump() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 5);
    answer(sequencer, events(2, 4));

    assertThat(log).containsExactly("ask 2..4", "apply 2", "ask dump");
  }

  @Test
  void anEventsAnswer_mayLeaveOutWhatCameBeforeAClear_itHolds() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 5);
    DynamoRouterEvent clear =
        new DynamoRouterEvent(new RouterEvent(RANK, KvCacheEvent.cleared()), 3);
    answer(sequencer, new WorkerKvQueryResult.Events(List.of(clear, event(4))));

    assertThat(log).containsExactly("ask 2..4", "clear", "apply 4", "apply 5");
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.FOLLOWING);
  }

  @Test
  void anAnswerToAnOlderQuestion_isIgnored() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.resync();
    long dumpAsked = lastQuestion();
    restarted(sequencer, 0); // the worker restarted: its event 0 supersedes the question
    sequencer.answered(dumpAsked, dump(50L, 100), clock.nanos());

    assertThat(log).containsExactly("ask dump", "clear", "apply 1000");
    assertFollowingAt(sequencer, 0);
  }

  @Test
  void aQuietRank_isProbedForAnythingAfterItsLastEvent_onceQuietForLongerThanTheProbeInterval() {
    DynamoEventSequencer sequencer = following(2);
    tick(sequencer, PROBE);
    assertThat(log).isEmpty();
    tick(sequencer, Duration.ofNanos(1));
    answer(sequencer, new WorkerKvQueryResult.TooNew(3, null, 2)); // nothing was missed
    tick(sequencer, PROBE);
    assertThat(log).as("quiet again since the answer").containsExactly("ask 3..");
    tick(sequencer, Duration.ofNanos(1));

    assertThat(log).containsExactly("ask 3..", "ask 3..");
    assertThat(feed(sequencer).resets()).isZero();
  }

  @Test
  void aProbe_bringsBackALostTail() {
    DynamoEventSequencer sequencer = following(2);
    tick(sequencer, PROBE.plusNanos(1));
    answer(sequencer, events(3, 4));

    assertThat(log).containsExactly("ask 3..", "apply 3", "apply 4");
    assertFollowingAt(sequencer, 4);
  }

  @Test
  void eventsArrivingWhileAProbeIsOut_areApplied_whenItSaysNothingWasMissed() {
    DynamoEventSequencer sequencer = following(2);
    tick(sequencer, PROBE.plusNanos(1));
    live(sequencer, 3, 4); // held: a question is out
    answer(sequencer, new WorkerKvQueryResult.TooNew(3, null, 2)); // as things were when asked

    assertThat(log).containsExactly("ask 3..", "apply 3", "apply 4");
  }

  @Test
  void aQuietRank_isNotProbed_beforeItsPositionIsKnown_norWhileAQuestionIsOut() {
    DynamoEventSequencer sequencer = sequencer(false);
    tick(sequencer, PROBE.multipliedBy(2));
    assertThat(log).isEmpty();
    sequencer.resync();
    tick(sequencer, PROBE.multipliedBy(2));

    assertThat(log).containsExactly("ask dump");
  }

  @Test
  void tooNewWithAnOlderNewestEvent_meansTheWorkerRestarted() {
    DynamoEventSequencer sequencer = following(5);
    tick(sequencer, PROBE.plusNanos(1));
    answer(sequencer, new WorkerKvQueryResult.TooNew(6, null, 2));

    assertThat(log).containsExactly("ask 6..", "ask dump");
  }

  @Test
  void tooNewToAGapQuestion_meansTheWorkerLacksWhatItSent_itRestarted() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 4);
    answer(sequencer, new WorkerKvQueryResult.TooNew(2, 3L, 1));

    assertThat(log).containsExactly("ask 2..3", "ask dump");
  }

  @Test
  void atMostOnce_anOldId_meansTheWorkerRestartedAndItsEvent0WasLost() {
    DynamoEventSequencer sequencer = following(5);
    live(sequencer, 3);

    assertThat(log).containsExactly("ask dump");
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.UNSYNCED);
  }

  @Test
  void atLeastOnce_anOldId_isARepeat_andDropped() {
    DynamoEventSequencer sequencer = following(true, 5);
    live(sequencer, 3, 5, 6);

    assertThat(log).containsExactly("apply 6");
    assertThat(sequencer.duplicates()).isEqualTo(2);
  }

  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void event0AfterLaterEvents_isARestart_thatClearsTheRank(boolean atLeastOnce) {
    DynamoEventSequencer sequencer = following(atLeastOnce, 3);
    restarted(sequencer, 0);
    restarted(sequencer, 1);

    assertThat(log).containsExactly("clear", "apply 1000", "apply 1001");
    assertThat(feed(sequencer).resets()).isEqualTo(1);
  }

  @Test
  void eventsAnAnswerCovered_arrivingWithinTheStragglerWindow_areDropped() {
    DynamoEventSequencer sequencer = following(1);
    sequencer.resync(); // events 2..4 are still on their way
    answer(sequencer, dump(4L, 100));
    tick(sequencer, DynamoEventSequencer.STRAGGLER_WINDOW.minusNanos(1));
    live(sequencer, 2, 3, 4, 5);

    assertThat(log).containsExactly("ask dump", "clear", "apply 100", "apply 5");
    assertThat(sequencer.duplicates()).isEqualTo(3);
  }

  @Test
  void afterTheStragglerWindow_anOldId_isARestartAgain() {
    DynamoEventSequencer sequencer = following(1);
    sequencer.resync();
    answer(sequencer, dump(4L, 100));
    tick(sequencer, DynamoEventSequencer.STRAGGLER_WINDOW);
    live(sequencer, 2);

    assertThat(log).containsExactly("ask dump", "clear", "apply 100", "ask dump");
  }

  @Test
  void aRestartRightAfterAnAnswer_isNotTakenForStragglers() {
    DynamoEventSequencer sequencer = following(1);
    sequencer.resync();
    answer(sequencer, dump(4L, 100));
    restarted(sequencer, 0);
    restarted(sequencer, 1);

    assertThat(log)
        .containsExactly("ask dump", "clear", "apply 100", "clear", "apply 1000", "apply 1001");
  }

  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void aDumpAtZero_meansNoEventYet_soTheWorkersEvent0IsApplied(boolean atLeastOnce) {
    DynamoEventSequencer sequencer = sequencer(atLeastOnce);
    sequencer.resync();
    answer(sequencer, dump(0L));
    assertFollowingAt(sequencer, -1);
    live(sequencer, 0, 1);

    assertThat(log).containsExactly("ask dump", "clear", "clear", "apply 0", "apply 1");
    assertThat(feed(sequencer).batches()).isEqualTo(2);
    assertThat(feed(sequencer).resets()).as("the dump only").isEqualTo(1);
  }

  @Test
  void aDumpWithoutItsLastEventId_takesItsPositionFromTheNextEvent() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.resync();
    answer(sequencer, dump(null, 100));
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.UNSYNCED);
    live(sequencer, 57, 58);

    assertThat(log).containsExactly("ask dump", "clear", "apply 100", "apply 57", "apply 58");
    assertFollowingAt(sequencer, 58);
  }

  @Test
  void aFailedQuestion_isAskedAgain_after200ms_doublingUpTo5s() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.resync();
    fail(sequencer);
    for (long millis : new long[] {200, 400, 800, 1600, 3200, 5000, 5000}) {
      tick(sequencer, Duration.ofMillis(millis).minusNanos(1));
      assertThat(questions).as("not yet asked again after %d ms", millis).hasSize(1);
      tick(sequencer, Duration.ofNanos(1));
      assertThat(log).containsExactly("ask dump", "ask dump");
      assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.STALE);
      log.subList(1, 2).clear();
      questions.subList(0, 1).clear();
      fail(sequencer);
    }

    assertThat(feed(sequencer).incompleteReplays()).isEqualTo(8);
  }

  @Test
  void aFailedGapQuestion_isAskedAgainForTheSameEvents_andTheRankFollowsOnOnceAnswered() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 4);
    fail(sequencer);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.STALE);
    tick(sequencer, DynamoEventSequencer.FIRST_RETRY);
    answer(sequencer, events(2, 3));

    assertThat(log).containsExactly("ask 2..3", "ask 2..3", "apply 2", "apply 3", "apply 4");
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.FOLLOWING);
    assertThat(feed(sequencer).incompleteReplays()).isEqualTo(1);
  }

  @Test
  void errorAndInvalidRangeAnswers_andEventsForADump_areFailedQuestions() {
    DynamoEventSequencer sequencer = sequencer(false);
    sequencer.resync();
    answer(sequencer, new WorkerKvQueryResult.Error("no such rank"));
    tick(sequencer, DynamoEventSequencer.FIRST_RETRY);
    answer(sequencer, new WorkerKvQueryResult.InvalidRange(3, 2));
    tick(sequencer, DynamoEventSequencer.FIRST_RETRY.multipliedBy(2));
    answer(sequencer, events(1));

    assertThat(log).containsExactly("ask dump", "ask dump", "ask dump");
    assertThat(feed(sequencer).incompleteReplays()).isEqualTo(3);
  }

  @Test
  void aWorkerThatNeverAnswers_hasItsEventsAppliedAsTheyCome_untilADumpAnswers() {
    DynamoEventSequencer sequencer = following(1);
    live(sequencer, 4); // a gap: held, and asked for
    fail(sequencer);
    tick(sequencer, Duration.ofMillis(200));
    fail(sequencer);
    tick(sequencer, Duration.ofMillis(400));
    fail(sequencer); // the third: held events are applied, holes and all
    live(sequencer, 5);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.STALE);
    tick(sequencer, Duration.ofMillis(800)); // now asking for a dump
    live(sequencer, 6);
    answer(sequencer, dump(6L, 100));

    assertThat(log)
        .containsExactly(
            "ask 2..3",
            "ask 2..3",
            "ask 2..3",
            "apply 4",
            "apply 5",
            "ask dump",
            "apply 6",
            "clear",
            "apply 100");
    assertThat(feed(sequencer).gaps()).as("the hole before 4").isEqualTo(2);
    assertThat(feed(sequencer).state()).isEqualTo(KvEventFeed.FOLLOWING);
    live(sequencer, 7);
    assertThat(log).endsWith("apply 7");
  }

  @Test
  void bestEffort_anEvent0WhileADumpIsOut_supersedesIt() {
    DynamoEventSequencer sequencer = sequencer(true);
    sequencer.resync();
    for (long millis : new long[] {200, 400, 800}) {
      fail(sequencer);
      tick(sequencer, Duration.ofMillis(millis));
    }
    long oldDump = lastQuestion(); // asked of the old process
    restarted(sequencer, 0);
    restarted(sequencer, 1);
    sequencer.answered(oldDump, dump(50L, 100), clock.nanos());
    answer(sequencer, dump(1L, 1000, 1001));

    assertThat(log)
        .containsExactly(
            "ask dump",
            "ask dump",
            "ask dump",
            "ask dump",
            "clear",
            "apply 1000",
            "ask dump",
            "apply 1001",
            "clear",
            "apply 1000",
            "apply 1001");
    assertFollowingAt(sequencer, 1);
  }

  @Test
  void tooManyHeldEvents_whileAGapIsAskedFor_askForATreeDumpInstead() {
    DynamoEventSequencer sequencer = sequencer(false, 4);
    live(sequencer, 0, 1);
    live(sequencer, 3, 4, 5, 6, 7); // 2 lost; 7 is one too many to hold
    answer(sequencer, dump(7L, 100));

    assertThat(log)
        .containsExactly(
            "clear", "apply 0", "apply 1", "ask 2..2", "ask dump", "clear", "apply 100");
    assertThat(feed(sequencer).resets()).isEqualTo(1);
    assertThat(sequencer.heldLimitReached()).isEqualTo(1);
  }

  @Test
  void tooManyHeldEvents_whileADumpIsOut_areDropped_andTheDumpStillCounts() {
    DynamoEventSequencer sequencer = sequencer(false, 4);
    sequencer.resync();
    live(sequencer, 10, 11, 12, 13, 14); // 14 is one too many: the dump covers the older ones
    answer(sequencer, dump(12L, 100));

    assertThat(log).containsExactly("ask dump", "clear", "apply 100", "ask 13..13");
    assertThat(feed(sequencer).resets()).isEqualTo(1);
    assertThat(sequencer.heldLimitReached()).isEqualTo(1);
  }

  @Test
  void bestEffort_eventsKeptForAfterTheDump_areBounded_andAHoleAfterItIsAskedFor() {
    DynamoEventSequencer sequencer = sequencer(false, 4);
    sequencer.resync();
    for (long millis : new long[] {200, 400, 800}) {
      fail(sequencer);
      tick(sequencer, Duration.ofMillis(millis));
    }
    // best effort, a dump out: each event is applied now, and kept to apply again after the
    // dump, but never more than 4 of them
    live(sequencer, LongStream.rangeClosed(10, 20).toArray());
    answer(sequencer, dump(12L, 100));

    List<String> expected =
        new ArrayList<>(List.of("ask dump", "ask dump", "ask dump", "ask dump"));
    LongStream.rangeClosed(10, 20).forEach(id -> expected.add("apply " + id));
    expected.addAll(List.of("clear", "apply 100", "ask 13..17"));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.heldLimitReached()).isEqualTo(2);
  }

  @Test
  void theFeed_saysHowLongSinceTheLastEvent() {
    DynamoEventSequencer sequencer = sequencer(false);
    assertThat(feed(sequencer).millisSinceLastBatch()).as("none yet").isEqualTo(-1);
    live(sequencer, 0);
    clock.advance(Duration.ofMillis(1500));

    assertThat(feed(sequencer).millisSinceLastBatch()).isEqualTo(1500);
  }
}
