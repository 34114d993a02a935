package io.kvrouter.routing.schedule;

import io.kvrouter.common.Ticker;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.AddRequest;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.Free;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.MarkPrefillCompleted;
import io.kvrouter.protocol.dynamo.ActiveSequenceEvent.PrefillLoadHint;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Books shared by a fleet of routers, as Dynamo's {@code --router-replica-sync} shares them ({@code
 * docs/notes/dynamo-replica-sync.md} §4, §5): every local change is handed to an outbox as an
 * {@link ActiveSequenceEvent}, and {@link #apply} books other routers' changes, so each router's
 * load per rank is the fleet's.
 *
 * <p>Local and remote requests live in one {@link ActiveSequences} under keys of their own ({@code
 * L<id>} and {@code R<router id>/<id>}), so two routers' request ids never collide. Remote events
 * may come out of order: a {@code Free} for a request not booked yet leaves a tombstone so a late
 * {@code AddRequest} books nothing, and a {@code MarkPrefillCompleted} that comes first is kept and
 * applied at the booking; both are forgotten after {@link #REORDER_WINDOW}. Expiry is local, as in
 * Dynamo: {@link #sweep} frees old requests, remote ones included (a router that died or lost a
 * {@code Free} leaks nothing past the sweep's age), and tells nobody.
 *
 * <p>Thread-safe: the books are, and the side maps are concurrent.
 */
public final class ReplicatedActiveSequences implements ActiveSequences {
  /** How long a tombstone or an early prefill mark is kept (Dynamo's 300 s). */
  public static final Duration REORDER_WINDOW = Duration.ofSeconds(300);

  private final ActiveSequences books;
  private final long routerId;
  private final Consumer<ActiveSequenceEvent> outbox;
  private final Ticker ticker;

  /** Local requests still booked, with their rank: a {@code Free} names the rank. */
  private final Map<String, WorkerRank> localRanks = new ConcurrentHashMap<>();

  /** Remote keys freed before they were booked, with when. */
  private final Map<String, Long> tombstones = new ConcurrentHashMap<>();

  /** Remote keys whose prefill was marked done before they were booked, with when. */
  private final Map<String, Long> earlyMarks = new ConcurrentHashMap<>();

  /**
   * @param routerId this router's id on the wire (Dynamo's discovery instance id)
   * @param outbox takes each local change; must not block (Dynamo drops when its queue is full)
   */
  public ReplicatedActiveSequences(
      ActiveSequences books, long routerId, Consumer<ActiveSequenceEvent> outbox, Ticker ticker) {
    this.books = Objects.requireNonNull(books, "books");
    this.routerId = routerId;
    this.outbox = Objects.requireNonNull(outbox, "outbox");
    this.ticker = Objects.requireNonNull(ticker, "ticker");
  }

  @Override
  public boolean add(String requestId, WorkerRank worker, long[] blockHashes, long prefillTokens) {
    if (!books.add(local(requestId), worker, blockHashes, prefillTokens)) {
      return false;
    }
    localRanks.put(requestId, worker);
    send(
        requestId,
        worker,
        new AddRequest(blockHashes, true, null, new PrefillLoadHint(prefillTokens, null)));
    return true;
  }

  @Override
  public boolean markPrefillDone(String requestId) {
    WorkerRank worker = localRanks.get(Objects.requireNonNull(requestId, "requestId"));
    if (worker == null || !books.markPrefillDone(local(requestId))) {
      return false;
    }
    send(requestId, worker, MarkPrefillCompleted.INSTANCE);
    return true;
  }

  @Override
  public boolean free(String requestId) {
    WorkerRank worker = localRanks.remove(Objects.requireNonNull(requestId, "requestId"));
    if (worker == null || !books.free(local(requestId))) {
      return false;
    }
    send(requestId, worker, Free.INSTANCE);
    return true;
  }

  /**
   * Books another router's change. Ignores this router's own events and those of a stride other
   * than 1.
   */
  public void apply(ActiveSequenceEvent event) {
    if (event.routerId() == routerId || (event.stride() != null && event.stride() != 1)) {
      return;
    }
    String key = remote(event.routerId(), event.requestId());
    long now = ticker.nanos();
    if (event.data() instanceof AddRequest add) {
      if (tombstones.remove(key) != null) {
        return;
      }
      long[] blocks = add.tokenSequence() == null ? new long[0] : distinct(add.tokenSequence());
      PrefillLoadHint hint = add.prefillLoadHint();
      long prefill =
          add.trackPrefillTokens() && hint != null ? hint.initialEffectivePrefillTokens() : 0;
      if (books.add(key, event.worker(), blocks, prefill) && earlyMarks.remove(key) != null) {
        books.markPrefillDone(key);
      }
    } else if (event.data() instanceof Free) {
      if (!books.free(key)) {
        tombstones.put(key, now);
      }
    } else if (!books.markPrefillDone(key) && !books.isActive(key)) {
      earlyMarks.put(key, now);
    }
  }

  @Override
  public int sweep(Duration maxAge) {
    int freed = books.sweep(maxAge);
    localRanks.keySet().removeIf(id -> !books.isActive(local(id)));
    long oldest = ticker.nanos() - REORDER_WINDOW.toNanos();
    tombstones.values().removeIf(at -> at - oldest < 0);
    earlyMarks.values().removeIf(at -> at - oldest < 0);
    return freed;
  }

  @Override
  public int removeWorker(String workerId) {
    int freed = books.removeWorker(workerId);
    localRanks.values().removeIf(rank -> rank.workerId().equals(workerId));
    return freed;
  }

  @Override
  public boolean isActive(String requestId) {
    return books.isActive(local(requestId));
  }

  /** Requests over all ranks, other routers' included. */
  @Override
  public int activeRequests() {
    return books.activeRequests();
  }

  @Override
  public Map<WorkerRank, WorkerLoad> loads() {
    return books.loads();
  }

  @Override
  public WorkerLoad load(WorkerRank worker, long[] blockHashes) {
    return books.load(worker, blockHashes);
  }

  private void send(String requestId, WorkerRank worker, ActiveSequenceEvent.Data data) {
    outbox.accept(new ActiveSequenceEvent(requestId, worker, data, routerId, null, null));
  }

  private static String local(String requestId) {
    return "L" + Objects.requireNonNull(requestId, "requestId");
  }

  private static String remote(long routerId, String requestId) {
    return "R" + Long.toUnsignedString(routerId) + "/" + requestId;
  }

  /** The books count each block once per request; a peer's sequence may repeat a hash. */
  private static long[] distinct(long[] hashes) {
    return Arrays.stream(hashes).distinct().toArray();
  }
}
