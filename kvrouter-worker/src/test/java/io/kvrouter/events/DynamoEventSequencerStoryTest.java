package io.kvrouter.events;

import static io.kvrouter.events.SimulatedDynamoWorker.RANK;
import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvEventFeed;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.WorkerKvQueryResult;
import io.kvrouter.routing.index.KvIndexer;
import io.kvrouter.testing.DynamoWorkload;
import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whole stories of a {@link DynamoEventSequencer} following a real worker cache through its {@link
 * io.kvrouter.worker.kv.WorkerKvEventLog}: the wire between them loses, repeats and delays events
 * on purpose, the worker answers the sequencer's questions, and after each story the index must
 * hold exactly the worker's cache. Everything runs on the test's thread on a {@link ManualTicker}:
 * an answer comes right after the call that asked for it, unless the test parks it to give it late,
 * and time passes only when the test lets it, in steps of {@link #STEP}, each a tick.
 */
class DynamoEventSequencerStoryTest {
  private static final Duration PROBE = Duration.ofSeconds(2);
  private static final Duration STEP = Duration.ofMillis(50);

  /** The most virtual time a story may take to converge. */
  private static final Duration LIMIT = Duration.ofMinutes(1);

  /** More questions than this answered in a row, without time passing, is a loop. */
  private static final int MAX_ANSWERS_AT_ONCE = 10_000;

  private final ManualTicker clock = new ManualTicker();
  private final KvIndexer index = KvIndexer.inline();

  /** Answers not given yet, in the order asked. */
  private final Queue<Runnable> answers = new ArrayDeque<>();

  /** Answers held back until the test gives them. */
  private final List<Runnable> parked = new ArrayList<>();

  private int queries;

  /** Questions get no answer while positive, counting down. */
  private int failNext;

  /** Answers are parked while true. */
  private boolean parkAnswers;

  /** Answers say what the worker held when asked, not when the answer is given. */
  private boolean answerWhenAsked;

  /** Tree dumps leave out their last_event_id, as older Dynamo workers' do. */
  private boolean dumpsWithoutPosition;

  /** Who answers the questions: the current worker, unless a story says otherwise. */
  private BiFunction<Long, Long, WorkerKvQueryResult> responder =
      (start, end) -> this.worker.answer(RANK, start, end);

  private SimulatedDynamoWorker worker;
  private DynamoEventSequencer sequencer = sequencer(false, DynamoEventSequencer.MAX_HELD);

  private DynamoEventSequencer sequencer(boolean atLeastOnce, int maxHeld) {
    return new DynamoEventSequencer(
        RANK,
        new DynamoEventSequencer.Settings(atLeastOnce, PROBE, maxHeld),
        new DynamoEventSequencer.Output() {
          @Override
          public void apply(KvCacheEvent event) {
            index.apply(RANK, event);
          }

          @Override
          public void ask(long question, Long start, Long end) {
            asked(question, start, end);
          }
        },
        clock.nanos());
  }

  private void asked(long question, Long start, Long end) {
    queries++;
    if (failNext > 0) {
      failNext--;
      answers.add(
          () ->
              sequencer.unanswered(
                  question, new IllegalStateException("no responders"), clock.nanos()));
      return;
    }
    WorkerKvQueryResult early = answerWhenAsked ? responder.apply(start, end) : null;
    Runnable answer =
        () -> {
          WorkerKvQueryResult result = early != null ? early : responder.apply(start, end);
          if (dumpsWithoutPosition && result instanceof WorkerKvQueryResult.TreeDump dump) {
            result = new WorkerKvQueryResult.TreeDump(dump.events(), null);
          }
          sequencer.answered(question, result, clock.nanos());
        };
    if (parkAnswers) {
      parked.add(answer);
    } else {
      answers.add(answer);
    }
  }

  /** Calls the sequencer, then gives the answers to what it asked, and to what they asked. */
  private void call(Runnable call) {
    call.run();
    for (int given = 0; !answers.isEmpty(); given++) {
      assertThat(given).as("questions asked in a loop").isLessThan(MAX_ANSWERS_AT_ONCE);
      answers.remove().run();
    }
  }

  /** Where the worker's events arrive. */
  private void deliver(DynamoRouterEvent event) {
    call(() -> sequencer.event(event, clock.nanos()));
  }

  private SimulatedDynamoWorker worker(long seed, int buffer) {
    worker = new SimulatedDynamoWorker(seed, buffer, this::deliver);
    return worker;
  }

  /** A new process in place of the worker: event ids from 0 again, an empty cache. */
  private void restartWorker(long seed) {
    worker.close();
    worker(seed, 1024);
  }

  private void follow() {
    call(sequencer::resync);
  }

  /** Gives the parked answers now, oldest first. */
  private void giveParked() {
    List<Runnable> late = new ArrayList<>(parked);
    parked.clear();
    late.forEach(this::call);
  }

  /** Lets virtual time pass, a tick every {@link #STEP}, until {@code done}. */
  private void runUntil(BooleanSupplier done) {
    for (Duration waited = Duration.ZERO; !done.getAsBoolean(); waited = waited.plus(STEP)) {
      assertThat(waited).as("virtual time waited").isLessThan(LIMIT);
      clock.advance(STEP);
      call(() -> sequencer.tick(clock.nanos()));
    }
  }

  private boolean converged() {
    return DynamoWorkload.blocksOf(index).equals(worker.blocks())
        && feed().state().equals(KvEventFeed.FOLLOWING);
  }

  /** Lets time pass until the index holds the worker's cache and the rank is followed. */
  private void converge() {
    runUntil(this::converged);
    assertThat(index.stats().rejected()).as("nothing the index rejected").isZero();
  }

  private KvEventFeed feed() {
    return sequencer.feed(clock.nanos());
  }

  @Test
  void fromTheWorkersFirstEvent_followsWithoutAReset() {
    worker(1, 1024).steps(300);
    converge();

    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
    assertThat(feed().batches()).isEqualTo(worker.newestEventId() + 1);
    assertThat(feed().resets()).isZero();
  }

  @Test
  void lostEvents_areFetchedAsEvents_fromTheWorkersBuffer() {
    worker(2, 1024);
    SplittableRandom random = new SplittableRandom(2);
    worker.lose = id -> id > 0 && random.nextDouble() < 0.05;
    worker.steps(400);
    worker.lose = id -> false;
    worker.events(5); // the next event after a lost tail reveals it

    converge();
    assertThat(feed().gaps()).isPositive();
    assertThat(feed().resets()).as("every gap was in the buffer: no tree dump").isZero();
  }

  @Test
  void aLostLastEvent_isFetchedByProbingTheQuietRank() {
    worker(12, 1024).events(50);
    worker.lose = id -> true; // the tail never arrives, and nothing follows it
    worker.events(3);

    converge();
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
    assertThat(feed().resets()).isZero();
  }

  @Test
  void aProbedQuietRank_thatMissedNothing_staysAsItIs() {
    worker(13, 1024).events(50);
    converge();
    runUntil(() -> queries >= 2); // probed twice

    assertThat(feed().resets()).isZero();
    assertThat(feed().batches()).isEqualTo(worker.newestEventId() + 1);
    assertThat(feed().state()).isEqualTo(KvEventFeed.FOLLOWING);
  }

  @Test
  void aGapOlderThanTheBuffer_isRebuiltFromATreeDump() {
    worker(3, 8);
    worker.lose = id -> id > 5;
    worker.events(200);
    worker.lose = id -> false;
    worker.events(5);

    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void atLeastOnce_repeatedEvents_areAppliedOnce() {
    sequencer = sequencer(true, DynamoEventSequencer.MAX_HELD);
    worker(4, 1024).repeat = id -> id % 3 == 0;
    worker.steps(300);

    converge();
    assertThat(feed().batches()).isEqualTo(worker.newestEventId() + 1);
  }

  @Test
  void aNewRouter_asksForTheStateOfAQuietWorker() {
    worker(5, 16).lose = id -> true; // the router was not there
    worker.steps(200);

    follow();
    converge();
    assertThat(feed().resets()).isEqualTo(1);
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());

    worker.lose = id -> false;
    worker.steps(50);
    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void aWorkerRestart_replacesWhatTheRankHeld() {
    worker(6, 1024).steps(200);
    converge();

    restartWorker(66);
    worker.steps(100);
    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void atMostOnce_aWorkerRestartWhoseFirstEventsWereLost_isNoticedByItsRepeatedIds() {
    worker(7, 1024).steps(300);
    converge();

    restartWorker(77);
    worker.lose = id -> id < 5; // its first events never arrived
    worker.events(40);
    worker.lose = id -> false;
    worker.events(5);

    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void failedQueries_areRetried_andTheRankReadsStaleMeanwhile() {
    worker(8, 8).lose = id -> true;
    worker.steps(100);
    failNext = 3;

    follow();
    assertThat(feed().state()).isEqualTo(KvEventFeed.STALE);
    converge();
    assertThat(feed().incompleteReplays()).isEqualTo(3);
    assertThat(queries).isGreaterThanOrEqualTo(4);
  }

  @Test
  void aFailedProbe_isAskedAgain_untilItIsAnswered() {
    worker(23, 1024).events(30);
    worker.lose = id -> true;
    worker.events(2); // a lost tail, and the rank goes quiet
    failNext = 2; // the probe's first two tries fail

    converge();
    assertThat(feed().incompleteReplays()).isEqualTo(2);
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
  }

  @Test
  void anAnswerToAnOlderQuestion_isIgnored() {
    worker(9, 1024).steps(100);
    worker.lose = id -> true;
    worker.steps(50);
    parkAnswers = true;
    answerWhenAsked = true;
    follow(); // a dump asked of the old process, its answer parked

    parkAnswers = false;
    answerWhenAsked = false;
    restartWorker(99); // its event 0 supersedes the parked question
    worker.steps(100);
    giveParked(); // the old process's dump answers now

    converge();
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
  }

  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void aWorkerWithNoEventsYet_dumpsAtZero_andItsEvent0IsThenApplied(boolean atLeastOnce) {
    sequencer = sequencer(atLeastOnce, DynamoEventSequencer.MAX_HELD);
    worker(20, 1024);
    follow(); // asked before the worker's first event: TreeDump(last 0), empty
    assertThat(feed().resets()).isEqualTo(1);

    worker.events(30);
    converge();
    assertThat(feed().batches()).as("event 0 too").isEqualTo(worker.newestEventId() + 1);
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void eventsStillInFlightWhenAnAnswerCame_areDropped_notTakenForARestart() {
    worker(21, 1024).events(40);
    converge();
    worker.lag(); // the next events are slow to arrive
    worker.events(20);
    follow(); // and a dump that covers them overtakes them
    assertThat(feed().resets()).isEqualTo(1);
    worker.catchUp();
    worker.events(10);

    converge();
    assertThat(feed().resets()).as("no dump but the one asked for").isEqualTo(1);
    assertThat(queries).as("nothing asked after it").isEqualTo(1);
  }

  @Test
  void tooManyHeldEvents_askForATreeDumpInstead() {
    sequencer = sequencer(false, 16);
    worker(22, 1024).events(10);
    converge();
    parkAnswers = true;
    worker.lose = id -> id == 11; // a gap: later events are held while its answer is parked
    worker.events(60);
    assertThat(queries).as("the gap, then the dump").isEqualTo(2);
    parkAnswers = false;
    giveParked();
    worker.lose = id -> false;
    worker.events(5);

    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  /** Held events overflowing while a dump is out do not supersede it: steady traffic starved it. */
  @Test
  void aSteadyStream_whileADumpIsOut_doesNotSupersedeItForever() {
    sequencer = sequencer(false, 16);
    worker(42, 1024).events(10);
    converge();
    parkAnswers = true;
    follow();
    for (int round = 0; round < 10 && feed().resets() == 0; round++) {
      worker.events(20); // more than the rank holds arrive before each answer
      call(parked.remove(0)); // the oldest answer arrives; the others are still on their way
    }

    assertThat(feed().resets()).as("a dump was taken under steady traffic").isPositive();
  }

  @Test
  void eventsArrivingWhileAProbeIsOut_areApplied_whenItSaysNothingWasMissed() {
    worker(24, 1024).events(30);
    converge();
    parkAnswers = true;
    answerWhenAsked = true; // TooNew: nothing after the last event, as things were when asked
    runUntil(() -> queries == 1);
    worker.events(5); // held: a question is out
    parkAnswers = false;
    failNext = Integer.MAX_VALUE; // no later question helps: the answer out must do it
    giveParked();

    converge();
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
    assertThat(feed().resets()).isZero();
  }

  @Test
  void aWorkerThatNeverAnswers_isFollowedAsBestItCan_untilItAnswers() {
    worker(25, 1024).lose = id -> true; // the router missed the start
    worker.events(40);
    worker.lose = id -> false;
    failNext = Integer.MAX_VALUE;
    follow();
    worker.events(40);

    runUntil(() -> feed().state().equals(KvEventFeed.STALE) && feed().batches() > 0);
    worker.events(20);
    assertThat(feed().lastSeq())
        .as("its events are applied without waiting")
        .isEqualTo(worker.newestEventId());
    failNext = 0; // it answers again: the next dump puts the rank right

    converge();
    assertThat(feed().resets()).isEqualTo(1);
  }

  @Test
  void aTreeDumpWithoutItsLastEventId_takesItsPositionFromTheNextEvent() {
    dumpsWithoutPosition = true;
    worker(26, 16).lose = id -> true;
    worker.events(100);
    worker.lose = id -> false;
    follow();
    assertThat(feed().resets()).isEqualTo(1);
    worker.events(30);

    converge();
    assertThat(feed().lastSeq()).isEqualTo(worker.newestEventId());
  }

  /** A worker that restarts within a second of an answer: its event 0 is not a straggler. */
  @ParameterizedTest(name = "at least once: {0}")
  @ValueSource(booleans = {false, true})
  void aRestartRightAfterAProbeAnswer_isNotSwallowedAsStragglers(boolean atLeastOnce) {
    sequencer = sequencer(atLeastOnce, DynamoEventSequencer.MAX_HELD);
    worker(30, 1024).events(50);
    converge();
    worker.lose = id -> true;
    worker.events(2); // a lost tail: the probe fetches it, and stragglers up to it are dropped
    long tail = worker.newestEventId();
    runUntil(() -> feed().lastSeq() == tail);

    restartWorker(31); // no time passes: within the straggler window
    worker.events((int) tail + 20); // its ids pass the old position

    converge();
  }

  /** Best effort: a dump asked of the old process, answered after the worker restarted. */
  @Test
  void bestEffort_aDumpFromBeforeARestart_doesNotOverrideTheNewProcess() {
    sequencer = sequencer(true, DynamoEventSequencer.MAX_HELD);
    worker(40, 1024).events(50);
    converge();
    failNext = Integer.MAX_VALUE;
    follow(); // a dump that keeps failing: best effort after 3
    runUntil(() -> feed().incompleteReplays() >= 3);
    parkAnswers = true;
    answerWhenAsked = true; // the dump is what the OLD process held
    failNext = 0;
    int before = queries;
    runUntil(() -> queries > before); // the retry is out

    parkAnswers = false;
    answerWhenAsked = false;
    restartWorker(41); // events 0.. applied and held (best effort)
    worker.events(10);
    giveParked(); // the old process's dump arrives now
    worker.events(80); // ids pass the old position

    converge();
  }

  /**
   * An Events answer with a hole is not asked again at once, forever (it was, 3.6 M times a
   * second).
   */
  @Test
  void anAnswerWithAHole_isNotAskedAgainInATightLoop() {
    responder =
        (start, end) ->
            start == null
                ? new WorkerKvQueryResult.TreeDump(List.of(), 0L)
                : new WorkerKvQueryResult.Events(List.of());
    for (long id : new long[] {0, 1, 3}) { // event 2 lost
      deliver(new DynamoRouterEvent(new RouterEvent(RANK, KvCacheEvent.cleared()), id));
    }

    assertThat(queries).as("questions without any time passing").isLessThan(20);
  }
}
