package io.kvrouter.events.zmq;

import io.kvrouter.protocol.KvEventFeed;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The ordering half of a {@link ZmqEventSubscriber}, without sockets or clocks: it is told what
 * arrives (live batches, replayed batches, the end of a replay) and tells its {@link Output} what
 * to do (reset the rank, apply a batch, open or drop a replay request). It guarantees that batches
 * are applied in sequence order, each at most once, and that the rank is reset whenever what it
 * held is unknown. Not thread-safe: the subscriber's thread owns it; the counters may be read from
 * any thread.
 *
 * <p>The rules (sequence numbers as in {@link ZmqFrames}):
 *
 * <ul>
 *   <li>The next number is applied. A gap holds the batch and asks for a replay; everything that
 *       arrives meanwhile, live or replayed, is held, then applied in order once the replay ends. A
 *       number not above the last one applied is dropped.
 *   <li>A replay asks for everything from the last batch applied, not the one after it, so that the
 *       answer shows whether the publisher is still the one that sent that batch: the batch must
 *       come back byte for byte. If it comes back different, or nothing comes back (the publisher's
 *       numbers are below it now), the publisher restarted unseen, and the rank is reset and
 *       rebuilt by a replay from 0.
 *   <li>A restart also shows as a live number not above the last live one (PUB/SUB never reorders,
 *       so live numbers only go back when the publisher counts from 0 again). A live number not
 *       above the last applied, but above the last live one, is either the live copy of a batch a
 *       replay already brought (the replay overtook it) or a restart: it is a copy only if its
 *       payload is byte for byte the replayed one's. A restart, even during a replay, drops the
 *       replay and what was held, resets the rank and rebuilds it by a replay from 0.
 *   <li>A replay that brings less than was missing (the publisher's buffer no longer reaches back,
 *       it did not answer after {@link #REPLAY_ATTEMPTS} requests, or there is no replay socket)
 *       resets the rank, which is then rebuilt from what there is.
 *   <li>A probe (a replay the subscriber sends when the publisher has been quiet) finds batches the
 *       PUB socket lost at the end, which no later batch reveals, and a publisher that restarted
 *       while quiet. A probe that gets no answer changes nothing.
 *   <li>What is held is bounded: a replay during which {@link #MAX_HELD_BATCHES} batches or {@link
 *       #MAX_HELD_BYTES} bytes come to be held, or that has not ended by its deadline (timed by the
 *       subscriber, {@link #replayOverdue}), is abandoned. A publisher whose replay never ends (it
 *       trickles replies and never sends the end marker) would otherwise have every live batch held
 *       and the rank frozen for as long as it pleases. What the abandoned replay brought is used,
 *       as when replies stop short: a hole it leaves resets the rank, which goes on from the
 *       batches held.
 * </ul>
 */
final class BatchSequencer {

  /** What the sequencer asks of its subscriber; called synchronously, from its own calls. */
  interface Output {
    /** Forget everything the rank holds. */
    void reset();

    /** Apply this batch: it is the next one in sequence order. */
    void apply(long seq, byte[] payload);

    /**
     * Ask the replay socket for every buffered batch from {@code from}, dropping any request still
     * open: its answers must never be taken for this one's. Answers come back through {@link
     * #replayed} and {@link #replayEnded}.
     */
    void openReplay(long from);

    /** Drop the open replay request, if any: its answers are no longer wanted. */
    void closeReplay();
  }

  /**
   * How often a replay that gets no answer at all is asked for before it is given up: a busy
   * publisher may answer late, so one unanswered request proves little.
   */
  static final int REPLAY_ATTEMPTS = 3;

  /** How many replayed payloads are remembered to recognise their late live copies. */
  static final int REMEMBERED_REPLAYS = 1024;

  /**
   * Batches held at most while a replay runs: twice vLLM's replay buffer (10,000 batches), so that
   * a whole buffer's answer and as many live batches arriving meanwhile fit.
   */
  static final int MAX_HELD_BATCHES = 20_000;

  /**
   * Payload bytes held at most while a replay runs: four batches of the default {@code
   * --kv-events-max-message-bytes}, and 20,000 batches of 3 KiB (vLLM's are mostly smaller).
   */
  static final long MAX_HELD_BYTES = 64L << 20;

  /** The open replay request. */
  private static final class Replay {
    /** Where it starts: the last batch applied, to check it, or 0. */
    final long from;

    final boolean probe;
    int attempts = 1;

    /** Replayed batches after the last one applied. */
    int received;

    boolean lastReturned;
    boolean lastChanged;

    Replay(long from, boolean probe) {
      this.from = from;
      this.probe = probe;
    }
  }

  private final Output out;
  private final boolean canReplay;
  private final int maxHeldBatches;
  private final long maxHeldBytes;

  private long last = -1;
  private long lastDigest;
  private long lastLive = -1;
  private boolean synced;
  private Replay replay;

  /** Batches waiting to be applied, by sequence number. */
  private final HeldBatches held = new HeldBatches();

  /** Digests of applied batches no live copy has arrived for yet, by sequence number. */
  private final TreeMap<Long, Long> awaitingLiveCopy = new TreeMap<>();

  // one writer (the owning thread), read by others
  private volatile String state = KvEventFeed.UNSYNCED;
  private volatile long gaps;
  private volatile long replayed;
  private volatile long resets;
  private volatile long incompleteReplays;
  private volatile long duplicates;
  private volatile long replaysOverHeldLimit;
  private volatile long replaysOverdue;

  /** {@code canReplay}: whether the publisher has a replay socket. */
  BatchSequencer(Output out, boolean canReplay) {
    this(out, canReplay, MAX_HELD_BATCHES, MAX_HELD_BYTES);
  }

  /** With other bounds than {@link #MAX_HELD_BATCHES} and {@link #MAX_HELD_BYTES}. */
  BatchSequencer(Output out, boolean canReplay, int maxHeldBatches, long maxHeldBytes) {
    if (maxHeldBatches < 1 || maxHeldBytes < 1) {
      throw new IllegalArgumentException("the bounds of held batches must be positive");
    }
    this.out = out;
    this.canReplay = canReplay;
    this.maxHeldBatches = maxHeldBatches;
    this.maxHeldBytes = maxHeldBytes;
  }

  /**
   * The subscriber has just connected. With a replay socket, what the rank holds is rebuilt now
   * from the publisher's buffer, without waiting for its next batch; without one, at the first
   * batch.
   */
  void start() {
    if (canReplay) {
      resetRank();
      beginReplay(false);
    }
  }

  /** A batch from the PUB socket. */
  void live(long seq, byte[] payload) {
    boolean wentBack = seq <= lastLive;
    boolean copy = !wentBack && seq <= last && isReplayedCopy(seq, payload);
    lastLive = Math.max(lastLive, seq);
    awaitingLiveCopy.headMap(lastLive, true).clear();
    if (copy) {
      duplicates++;
      return;
    }
    if (wentBack || (synced && seq <= last)) {
      restart(seq, payload);
      return;
    }
    if (!synced) {
      // the first batch, and no replay socket to have rebuilt the rank from
      resetRank();
      holdOrFetchFromZero(seq, payload);
      return;
    }
    if (replay != null) {
      held.put(seq, payload);
      abandonReplayIfHoldingTooMuch();
      return;
    }
    if (seq == last + 1) {
      apply(seq, payload);
      return;
    }
    gaps++;
    held.put(seq, payload);
    fetchMissing();
  }

  /** A batch answering the open replay request. */
  void replayed(long seq, byte[] payload) {
    if (replay == null || seq < replay.from) {
      return;
    }
    if (seq == last) {
      replay.lastReturned = true;
      replay.lastChanged = digest(payload) != lastDigest;
      return;
    }
    if (seq < last) {
      return;
    }
    replay.received++;
    replayed++;
    held.putIfAbsent(seq, payload);
    abandonReplayIfHoldingTooMuch();
  }

  /**
   * The open replay request ended: {@code answered} when its end marker arrived, or replies came
   * and then stopped; otherwise nothing came for too long, and the request is sent again, up to
   * {@link #REPLAY_ATTEMPTS} times in all, before it is given up (a probe is not sent again).
   */
  void replayEnded(boolean answered) {
    Replay ended = replay;
    if (ended == null) {
      return;
    }
    if (!answered && !ended.probe && ended.attempts < REPLAY_ATTEMPTS) {
      // a publisher too busy to answer in time is no reason to reset the rank yet
      ended.attempts++;
      out.openReplay(ended.from);
      return;
    }
    replay = null;
    if (!answered) {
      if (ended.probe) {
        applyHeld(); // nothing is known to be missing
      } else {
        giveUpOnMissing();
      }
      return;
    }
    if (last >= 0 && (ended.lastChanged || (!ended.lastReturned && ended.received == 0))) {
      restartedUnseen();
      return;
    }
    if (ended.probe && ended.received > 0) {
      gaps++; // the probe found batches the PUB socket lost
    }
    if (!held.isEmpty() && held.first().getKey() != last + 1) {
      giveUpOnMissing(); // the publisher's buffer no longer reaches back to them
      return;
    }
    applyHeld();
  }

  /**
   * The open replay has not ended by its deadline, though replies keep coming (else it would have
   * ended for want of them): it is abandoned (see the class comment).
   */
  void replayOverdue() {
    if (replay != null) {
      replaysOverdue++;
      abandonReplay();
    }
  }

  /** Asks for anything after the last batch, unless a replay is open or there is no socket. */
  void probe() {
    if (canReplay && synced && replay == null) {
      beginReplay(true);
    }
  }

  private void abandonReplayIfHoldingTooMuch() {
    if (replay != null && (held.size() >= maxHeldBatches || held.bytes() >= maxHeldBytes)) {
      replaysOverHeldLimit++;
      abandonReplay();
    }
  }

  /**
   * Drops the open replay before its end marker and uses what it brought, as when its replies stop
   * short: a restart it revealed rebuilds the rank; a hole it left resets the rank, which goes on
   * from the batches held; else they are applied (a hole among them asks again).
   */
  private void abandonReplay() {
    Replay abandoned = replay;
    replay = null;
    out.closeReplay();
    if (last >= 0 && abandoned.lastChanged) {
      restartedUnseen();
    } else if (!held.isEmpty() && held.first().getKey() != last + 1) {
      giveUpOnMissing();
    } else {
      applyHeld();
    }
  }

  /** The publisher counts from 0 again: what the rank held is gone. */
  private void restart(long seq, byte[] payload) {
    if (replay != null) {
      replay = null;
      out.closeReplay();
    }
    held.clear();
    lastLive = seq;
    resetRank();
    holdOrFetchFromZero(seq, payload);
  }

  /**
   * A replay showed that the publisher no longer holds the last batch as it was applied: it
   * restarted unseen (or ran a whole buffer ahead). What the rank holds is unknown.
   */
  private void restartedUnseen() {
    held.clear(); // the replay from 0 brings these again
    lastLive = -1;
    resetRank();
    fetchMissing();
  }

  /** After a reset: batch 0 is applied; a later one waits for the batches before it. */
  private void holdOrFetchFromZero(long seq, byte[] payload) {
    held.put(seq, payload);
    if (seq == 0) {
      applyHeld();
    } else {
      fetchMissing();
    }
  }

  /** Replays what is missing, or without a replay socket gives up on it. */
  private void fetchMissing() {
    if (canReplay) {
      beginReplay(false);
    } else {
      giveUpOnMissing();
    }
  }

  /**
   * What was missing cannot be had: the rank is reset (unless it was just reset) and goes on from
   * the batches held.
   */
  private void giveUpOnMissing() {
    incompleteReplays++;
    if (last >= 0) {
      resetRank();
    }
    applyHeld();
  }

  /** Asks for everything from the last batch applied (to check it), or from 0. */
  private void beginReplay(boolean probe) {
    replay = new Replay(Math.max(last, 0), probe);
    if (!probe) {
      state = KvEventFeed.REPLAYING;
    }
    out.openReplay(replay.from);
  }

  /** Applies held batches in order until a hole, which starts another replay. */
  private void applyHeld() {
    while (!held.isEmpty()) {
      Map.Entry<Long, byte[]> first = held.first();
      long seq = first.getKey();
      if (seq <= last) {
        held.dropFirst();
        continue;
      }
      if (last >= 0 && seq != last + 1) {
        gaps++;
        fetchMissing();
        return;
      }
      held.dropFirst();
      apply(seq, first.getValue());
    }
    if (replay == null) {
      state = KvEventFeed.FOLLOWING;
    }
  }

  private void apply(long seq, byte[] payload) {
    last = seq;
    lastDigest = digest(payload);
    if (seq > lastLive) {
      // its live copy may still be on its way
      awaitingLiveCopy.put(seq, lastDigest);
      if (awaitingLiveCopy.size() > REMEMBERED_REPLAYS) {
        awaitingLiveCopy.pollFirstEntry();
      }
    }
    if (replay == null) {
      state = KvEventFeed.FOLLOWING;
    }
    out.apply(seq, payload);
  }

  private void resetRank() {
    resets++;
    synced = true;
    last = -1;
    awaitingLiveCopy.clear();
    out.reset();
  }

  private boolean isReplayedCopy(long seq, byte[] payload) {
    Long digest = awaitingLiveCopy.get(seq);
    return digest != null && digest == digest(payload);
  }

  /** Length and CRC-32C: a restarted publisher's batch matching both is not a concern. */
  private static long digest(byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(payload);
    return ((long) payload.length << 32) | crc.getValue();
  }

  /** {@code unsynced}, {@code replaying} or {@code following}. */
  String state() {
    return state;
  }

  /** The last sequence number applied; -1 before the first or right after a reset. */
  long last() {
    return last;
  }

  boolean replaying() {
    return replay != null;
  }

  long gaps() {
    return gaps;
  }

  long replayed() {
    return replayed;
  }

  long resets() {
    return resets;
  }

  long incompleteReplays() {
    return incompleteReplays;
  }

  /** Live copies of batches a replay had already brought, dropped. */
  long duplicates() {
    return duplicates;
  }

  /** Replays abandoned because too much came to be held. */
  long replaysOverHeldLimit() {
    return replaysOverHeldLimit;
  }

  /** Replays abandoned because they had not ended by their deadline. */
  long replaysOverdue() {
    return replaysOverdue;
  }

  /** Batches held now (for tests: the thread that owns the sequencer only). */
  int heldBatches() {
    return held.size();
  }

  /** Payload bytes held now (for tests: the thread that owns the sequencer only). */
  long heldBytes() {
    return held.bytes();
  }
}
