package io.kvrouter.events.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sequencing rules of {@link BatchSequencer}, driven by hand: what the subscriber would receive
 * goes in, and what it is asked to do is recorded as a log of {@code reset}, {@code apply N},
 * {@code replay from N} and {@code close replay}.
 */
class BatchSequencerTest {
  private final List<String> log = new ArrayList<>();
  private final BatchSequencer.Output output =
      new BatchSequencer.Output() {
        @Override
        public void reset() {
          log.add("reset");
        }

        @Override
        public void apply(long seq, byte[] payload) {
          String run = new String(payload, StandardCharsets.UTF_8);
          assertThat(run).endsWith(String.valueOf(seq));
          // batches of the first publisher run as "apply N", of a restarted one as "apply bN"
          log.add("apply " + (run.startsWith("a") ? seq : run));
        }

        @Override
        public void openReplay(long from) {
          log.add("replay from " + from);
        }

        @Override
        public void closeReplay() {
          log.add("close replay");
        }
      };

  /** Publisher {@code run}'s batch {@code seq}; a restarted publisher is another run. */
  private static String payload(long seq, String run) {
    return run + seq;
  }

  private static byte[] bytes(long seq, String run) {
    return payload(seq, run).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] bytes(long seq) {
    return bytes(seq, "a");
  }

  /**
   * A sequencer with a replay socket that has synced on an empty publisher (one reset, at the
   * start).
   */
  private BatchSequencer synced() {
    BatchSequencer sequencer = new BatchSequencer(output, true);
    sequencer.start();
    sequencer.replayEnded(true);
    log.clear();
    return sequencer;
  }

  private void live(BatchSequencer sequencer, long from, long to) {
    for (long seq = from; seq <= to; seq++) {
      sequencer.live(seq, bytes(seq));
    }
  }

  private void replayed(BatchSequencer sequencer, long from, long to) {
    for (long seq = from; seq <= to; seq++) {
      sequencer.replayed(seq, bytes(seq));
    }
  }

  private static List<String> applies(long from, long to) {
    List<String> applies = new ArrayList<>();
    for (long seq = from; seq <= to; seq++) {
      applies.add("apply " + seq);
    }
    return applies;
  }

  @Test
  void aNewSubscriber_resetsTheRank_andRebuildsItFromTheBufferBeforeAnyLiveBatch() {
    BatchSequencer sequencer = new BatchSequencer(output, true);
    sequencer.start();
    assertThat(sequencer.state()).isEqualTo("replaying");
    sequencer.live(4, bytes(4));
    replayed(sequencer, 0, 3);
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(List.of("reset", "replay from 0"));
    expected.addAll(applies(0, 4));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.state()).isEqualTo("following");
    assertThat(sequencer.incompleteReplays()).isZero();
  }

  @Test
  void liveBatchesDuringAReplay_areHeld_andAppliedInOrderAfterIt() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(4, bytes(4)); // 2 and 3 lost
    sequencer.live(6, bytes(6)); // and 5
    sequencer.live(7, bytes(7));
    assertThat(sequencer.state()).isEqualTo("replaying");
    replayed(sequencer, 1, 7); // from the last applied, which comes back unchanged
    sequencer.live(8, bytes(8));
    assertThat(log).containsExactly("apply 0", "apply 1", "replay from 1");
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(applies(0, 1));
    expected.add("replay from 1");
    expected.addAll(applies(2, 8));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.gaps()).isEqualTo(1);
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
  }

  @Test
  void liveCopiesOfBatchesAReplayAlreadyApplied_areDropped_notTakenForARestart() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(3, bytes(3));
    // the replay answers with everything up to 6; 4 to 6 are still on their way over the PUB socket
    replayed(sequencer, 1, 6);
    sequencer.replayEnded(true);
    live(sequencer, 4, 7);

    List<String> expected = new ArrayList<>(applies(0, 1));
    expected.add("replay from 1");
    expected.addAll(applies(2, 7));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.duplicates()).isEqualTo(3);
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
  }

  @Test
  void aRestartedPublisher_whoseNumbersFallInWhatAReplayBrought_isARestart() {
    BatchSequencer sequencer = new BatchSequencer(output, true);
    sequencer.start();
    replayed(sequencer, 0, 5); // a new router rebuilt 0..5; nothing came live since
    sequencer.replayEnded(true);
    log.clear();

    sequencer.live(0, bytes(0, "b")); // the restarted publisher's first batch

    assertThat(log).containsExactly("reset", "apply b0");
    assertThat(sequencer.resets()).isEqualTo(2);
  }

  @Test
  void aRestartDuringAReplay_dropsTheReplay_resetsTheRank_andReplaysFromZero() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 9);
    sequencer.live(12, bytes(12)); // a gap: a replay from 9, the last applied
    replayed(sequencer, 10, 11);
    // the publisher restarts before the replay ends
    sequencer.live(2, bytes(2, "b"));
    assertThat(sequencer.replaying()).as("the replay from 0 is open").isTrue();
    sequencer.replayed(0, bytes(0, "b"));
    sequencer.replayed(1, bytes(1, "b"));
    sequencer.replayed(2, bytes(2, "b"));
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(applies(0, 9));
    expected.addAll(
        List.of(
            "replay from 9",
            "close replay",
            "reset",
            "replay from 0",
            "apply b0",
            "apply b1",
            "apply b2"));
    assertThat(log)
        .as("nothing of the dropped replay was applied")
        .containsExactlyElementsOf(expected);
    assertThat(sequencer.incompleteReplays()).isZero();
  }

  @Test
  void aRestart_isSeenWhenLiveNumbersGoBack() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 9);
    sequencer.live(3, bytes(3, "b")); // 0..2 of the new run were lost
    sequencer.replayed(0, bytes(0, "b"));
    sequencer.replayed(1, bytes(1, "b"));
    sequencer.replayed(2, bytes(2, "b"));
    sequencer.replayEnded(true);
    sequencer.live(4, bytes(4, "b"));

    assertThat(log.subList(10, log.size()))
        .containsExactly(
            "reset", "replay from 0", "apply b0", "apply b1", "apply b2", "apply b3", "apply b4");
    assertThat(sequencer.resets()).isEqualTo(2);
  }

  @Test
  void aRestartLookingLikeAGap_isSeenByTheReplay_whoseLastBatchComesBackDifferent() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 9);
    // restarted while cut off, and has sent 16 batches since: the first one seen looks like a gap
    sequencer.live(15, bytes(15, "b"));
    for (long seq = 9; seq <= 15; seq++) {
      sequencer.replayed(seq, bytes(seq, "b"));
    }
    sequencer.replayEnded(true);
    for (long seq = 0; seq <= 15; seq++) {
      sequencer.replayed(seq, bytes(seq, "b"));
    }
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(applies(0, 9));
    expected.addAll(List.of("replay from 9", "reset", "replay from 0"));
    for (long seq = 0; seq <= 15; seq++) {
      expected.add("apply b" + seq);
    }
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.resets()).isEqualTo(2);
  }

  @Test
  void aReplayThatCannotReachBack_resetsTheRank_andGoesOnFromWhatThereIs() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(9, bytes(9));
    replayed(sequencer, 5, 9); // the buffer starts at 5 now
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(applies(0, 1));
    expected.addAll(List.of("replay from 1", "reset"));
    expected.addAll(applies(5, 9));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.incompleteReplays()).isEqualTo(1);
  }

  @Test
  void anUnansweredReplay_isAskedAgain_thenGivenUp_resettingTheRank() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(3, bytes(3));
    for (int attempt = 0; attempt < BatchSequencer.REPLAY_ATTEMPTS; attempt++) {
      assertThat(sequencer.replaying()).isTrue();
      sequencer.replayEnded(false);
    }

    assertThat(log)
        .containsExactly(
            "apply 0",
            "apply 1",
            "replay from 1",
            "replay from 1",
            "replay from 1",
            "reset",
            "apply 3");
    assertThat(sequencer.incompleteReplays()).isEqualTo(1);
    assertThat(sequencer.state()).isEqualTo("following");
  }

  @Test
  void aReplayAnsweredOnASecondAttempt_needsNoReset() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(3, bytes(3));
    sequencer.replayEnded(false);
    sequencer.replayed(2, bytes(2));
    sequencer.replayEnded(true);

    assertThat(log)
        .containsExactly(
            "apply 0", "apply 1", "replay from 1", "replay from 1", "apply 2", "apply 3");
    assertThat(sequencer.incompleteReplays()).isZero();
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
  }

  @Test
  void aHoleInTheReplayedBatches_asksAgainFromIt() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(6, bytes(6));
    replayed(sequencer, 2, 3);
    replayed(sequencer, 5, 6); // 4 was dropped on the way
    sequencer.replayEnded(true);
    sequencer.replayed(4, bytes(4));
    sequencer.replayEnded(true);

    List<String> expected = new ArrayList<>(applies(0, 1));
    expected.add("replay from 1");
    expected.addAll(applies(2, 3));
    expected.add("replay from 3");
    expected.addAll(applies(4, 6));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.incompleteReplays()).isZero();
  }

  @Test
  void aProbe_findsALostLastBatch() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.probe();
    replayed(sequencer, 1, 2); // the last one applied, checked, and one the PUB socket lost
    sequencer.replayEnded(true);

    assertThat(log).containsExactly("apply 0", "apply 1", "replay from 1", "apply 2");
    assertThat(sequencer.gaps()).isEqualTo(1);
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
    assertThat(sequencer.state()).isEqualTo("following");
  }

  @Test
  void aProbe_withNothingNew_orNoAnswer_changesNothing() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.probe();
    assertThat(sequencer.state()).as("a probe is no replay").isEqualTo("following");
    sequencer.replayed(1, bytes(1));
    sequencer.replayEnded(true);
    sequencer.probe();
    sequencer.live(2, bytes(2)); // held until the probe ends
    sequencer.replayEnded(false);

    assertThat(log)
        .containsExactly("apply 0", "apply 1", "replay from 1", "replay from 1", "apply 2");
    assertThat(sequencer.gaps()).isZero();
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
    assertThat(sequencer.incompleteReplays()).isZero();
  }

  @Test
  void aProbe_findsAPublisherThatRestartedWhileQuiet() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 5);
    // restarted; its new batches 0 and 1 were lost on the PUB socket, and it has been quiet since
    sequencer.probe();
    sequencer.replayEnded(true); // nothing from 5 on: its numbers are below 5 now
    sequencer.replayed(0, bytes(0, "b"));
    sequencer.replayed(1, bytes(1, "b"));
    sequencer.replayEnded(true);
    sequencer.live(2, bytes(2, "b"));

    List<String> expected = new ArrayList<>(applies(0, 5));
    expected.addAll(
        List.of("replay from 5", "reset", "replay from 0", "apply b0", "apply b1", "apply b2"));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.resets()).isEqualTo(2);
  }

  @Test
  void aProbe_whoseLastBatchComesBackDifferent_findsARestart() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 2);
    sequencer.probe();
    sequencer.replayed(2, bytes(2, "b")); // the restarted publisher has a batch 2 of its own
    sequencer.replayEnded(true);

    assertThat(log).containsSubsequence("replay from 2", "reset", "replay from 0");
    assertThat(sequencer.resets()).isEqualTo(2);
  }

  @Test
  void withoutAReplaySocket_theFirstBatchResets_andAGapResetsAndGoesOn() {
    BatchSequencer sequencer = new BatchSequencer(output, false);
    sequencer.start();
    sequencer.probe();
    assertThat(sequencer.state()).isEqualTo("unsynced");
    live(sequencer, 3, 4);
    sequencer.live(7, bytes(7));

    assertThat(log).containsExactly("reset", "apply 3", "apply 4", "reset", "apply 7");
    assertThat(sequencer.incompleteReplays()).as("at the start, and at the gap").isEqualTo(2);
    assertThat(sequencer.gaps()).isEqualTo(1);
  }

  /** The log after its first {@code skip} entries. */
  private List<String> logFrom(int skip) {
    return log.subList(skip, log.size());
  }

  @Test
  void liveBatchesPilingUpDuringAReplayThatNeverEnds_stopAtTheCap_whichResetsTheRank() {
    BatchSequencer sequencer = new BatchSequencer(output, true);
    sequencer.start();
    sequencer.replayEnded(true);
    log.clear();
    live(sequencer, 0, 1);
    long last = BatchSequencer.MAX_HELD_BATCHES + 5_000;
    for (long seq = 3; seq <= last; seq++) { // 2 lost; the replay asked for never ends
      sequencer.live(seq, bytes(seq));
      assertThat(sequencer.heldBatches()).isLessThan(BatchSequencer.MAX_HELD_BATCHES);
    }

    List<String> expected =
        new ArrayList<>(List.of("apply 0", "apply 1", "replay from 1", "close replay", "reset"));
    expected.addAll(applies(3, last));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.replaysOverHeldLimit()).isEqualTo(1);
    assertThat(sequencer.incompleteReplays()).isEqualTo(1);
    assertThat(sequencer.resets()).isEqualTo(2);
    assertThat(sequencer.heldBatches()).isZero();
    assertThat(sequencer.state()).isEqualTo("following");
  }

  @Test
  void heldBytes_areCapped_too() {
    int payloadBytes = 1_000;
    BatchSequencer sequencer = new BatchSequencer(output, true, 1_000_000, 10 * payloadBytes);
    sequencer.start();
    sequencer.replayEnded(true);
    log.clear();
    live(sequencer, 0, 1);
    String padding = "a" + "x".repeat(payloadBytes);
    for (long seq = 3; seq <= 30; seq++) {
      sequencer.live(seq, (padding + seq).getBytes(StandardCharsets.UTF_8));
      assertThat(sequencer.heldBytes()).isLessThan(10L * payloadBytes);
    }

    List<String> expected =
        new ArrayList<>(List.of("apply 0", "apply 1", "replay from 1", "close replay", "reset"));
    expected.addAll(applies(3, 30));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.replaysOverHeldLimit()).isEqualTo(1);
  }

  @Test
  void aReplayFloodingRepliesPastTheCap_isAbandoned_andWhatFollowsAHoleIsAskedForAgain() {
    BatchSequencer sequencer = new BatchSequencer(output, true, 100, Long.MAX_VALUE);
    sequencer.start();
    sequencer.replayEnded(true);
    log.clear();
    live(sequencer, 0, 1);
    sequencer.live(3, bytes(3));
    // batches it cannot have, without end, until the sequencer stops listening
    for (long seq = 50; sequencer.replaysOverHeldLimit() == 0; seq++) {
      assertThat(seq).isLessThan(1_000);
      sequencer.replayed(seq, bytes(seq));
      assertThat(sequencer.heldBatches()).isLessThan(100);
    }

    assertThat(log)
        .containsExactly(
            "apply 0",
            "apply 1",
            "replay from 1",
            "close replay",
            "reset",
            "apply 3",
            "replay from 3");
    assertThat(sequencer.replaying()).as("asked again from the last batch applied").isTrue();
    assertThat(sequencer.heldBatches()).as("the batches beyond the hole").isEqualTo(99);
  }

  @Test
  void anOverdueReplay_isAbandoned_andWhatItBroughtIsUsed_withoutAReset() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 1);
    sequencer.live(3, bytes(3));
    replayed(sequencer, 1, 2); // and no end marker
    sequencer.live(4, bytes(4));
    sequencer.replayOverdue();

    List<String> expected = new ArrayList<>(applies(0, 1));
    expected.addAll(List.of("replay from 1", "close replay"));
    expected.addAll(applies(2, 4));
    assertThat(log).containsExactlyElementsOf(expected);
    assertThat(sequencer.replaysOverdue()).isEqualTo(1);
    assertThat(sequencer.incompleteReplays()).isZero();
    assertThat(sequencer.resets()).as("only the one at the start").isEqualTo(1);
    sequencer.replayOverdue();
    assertThat(sequencer.replaysOverdue()).as("no replay is open any more").isEqualTo(1);
  }

  @Test
  void anOverdueReplay_thatShowedARestart_rebuildsTheRank() {
    BatchSequencer sequencer = synced();
    live(sequencer, 0, 2);
    sequencer.probe();
    sequencer.replayed(2, bytes(2, "b")); // the restarted publisher's batch 2, and no end
    sequencer.replayOverdue();

    assertThat(logFrom(3))
        .containsExactly("replay from 2", "close replay", "reset", "replay from 0");
  }
}
