package io.kvrouter.routing.index;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.KvCacheEvent.StoredBlock;
import io.kvrouter.protocol.WorkerRank;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Random event streams from several worker ids and dp ranks over a small alphabet of blocks, so
 * prompts share prefixes. A {@link Step} is raw random numbers; {@link #next} turns it into an
 * event against the model's current state, so most events are valid (stores below blocks the rank
 * holds, removes of blocks it holds, in any order) while some are not (unknown parents and blocks,
 * moves, cycles, a second hash for the same tokens).
 */
final class Scenario {
  static final int WORKER_IDS = 3;
  static final int DP_RANKS = 2;
  static final int ALPHABET = 3;
  static final int MAX_DEPTH = 5;
  static final long SALT = 0x5A17_5A17_5A17_5A17L;

  enum Kind {
    STORE,
    STORE_ANY_PARENT,
    STORE_SECOND_HASH,
    MOVE,
    CYCLE,
    REMOVE,
    REMOVE_UNKNOWN,
    CLEAR,
    REMOVE_WORKER
  }

  /** One step in raw numbers. */
  record Step(
      Kind kind, int worker, List<Integer> tokens, int from, int pick1, int pick2, int pick3) {}

  /** What a step became: an event of a rank, or the removal of a worker id. */
  record Action(WorkerRank rank, KvCacheEvent event, String removedWorker, long[] query) {}

  /** The most steps in a stream. */
  static final int MAX_STEPS = 80;

  /** Step kinds with anomalies, by weight. */
  static final Gen.Weighted<Kind> ANY_KINDS =
      new Gen.Weighted<Kind>()
          .with(10, Kind.STORE)
          .with(3, Kind.STORE_ANY_PARENT)
          .with(2, Kind.STORE_SECOND_HASH)
          .with(2, Kind.MOVE)
          .with(1, Kind.CYCLE)
          .with(7, Kind.REMOVE)
          .with(1, Kind.REMOVE_UNKNOWN)
          .with(1, Kind.CLEAR)
          .with(1, Kind.REMOVE_WORKER);

  /** Step kinds an engine sends when nothing is lost, by weight. */
  static final Gen.Weighted<Kind> ENGINE_KINDS =
      new Gen.Weighted<Kind>()
          .with(12, Kind.STORE)
          .with(8, Kind.REMOVE)
          .with(1, Kind.CLEAR)
          .with(1, Kind.REMOVE_WORKER);

  static final Gen.Ints WORKERS = new Gen.Ints(0, WORKER_IDS * DP_RANKS - 1);
  static final Gen.Ints TOKENS = new Gen.Ints(0, ALPHABET - 1);
  static final Gen.Ints FROMS = new Gen.Ints(0, MAX_DEPTH);
  static final Gen.Ints PICKS = new Gen.Ints(0, 1000);

  /** A stream of 1 to {@link #MAX_STEPS} steps with anomalies. */
  static List<Step> streams(SplittableRandom random, int genSize) {
    return steps(random, new Gen.Sizes(1, MAX_STEPS, genSize).next(random), true);
  }

  /** A stream of 1 to {@link #MAX_STEPS} steps an engine sends when nothing is lost. */
  static List<Step> engineStreams(SplittableRandom random, int genSize) {
    return steps(random, new Gen.Sizes(1, MAX_STEPS, genSize).next(random), false);
  }

  /**
   * {@code count} steps; without {@code anomalies} only what an engine sends when nothing is lost:
   * stores below held blocks, removes of held blocks (in any order), clears and worker removals.
   */
  static List<Step> steps(SplittableRandom random, int count, boolean anomalies) {
    List<Step> steps = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      steps.add(step(random, anomalies));
    }
    return steps;
  }

  /**
   * One step: a kind by weight, a rank, 1 to {@link #MAX_DEPTH} tokens, a start and three picks.
   */
  static Step step(SplittableRandom random, boolean anomalies) {
    Kind kind = (anomalies ? ANY_KINDS : ENGINE_KINDS).next(random);
    int worker = WORKERS.nextInt(random);
    int length = Gen.between(random, 1, MAX_DEPTH); // 5 sizes or fewer: uniform
    List<Integer> tokens = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      tokens.add(TOKENS.nextInt(random));
    }
    int from = FROMS.nextInt(random);
    int pick1 = PICKS.nextInt(random);
    int pick2 = PICKS.nextInt(random);
    int pick3 = PICKS.nextInt(random);
    return new Step(kind, worker, List.copyOf(tokens), from, pick1, pick2, pick3);
  }

  /** Every token path up to {@code maxDepth}, as local block hashes. */
  static List<long[]> allQueries(int maxDepth) {
    List<long[]> queries = new ArrayList<>();
    List<List<Integer>> level = List.of(List.of());
    for (int d = 1; d <= maxDepth; d++) {
      List<List<Integer>> next = new ArrayList<>();
      for (List<Integer> p : level) {
        for (int v = 0; v < ALPHABET; v++) {
          List<Integer> q = new ArrayList<>(p);
          q.add(v);
          next.add(q);
          queries.add(query(q));
        }
      }
      level = next;
    }
    return queries;
  }

  static WorkerRank rank(int worker) {
    return new WorkerRank("w" + (worker / DP_RANKS) % WORKER_IDS, worker % DP_RANKS);
  }

  /** The local hash of a token value: the same at any depth. */
  static long tokensHash(int token) {
    return 0x100L + token;
  }

  /** The engine's hash of the block ending a path: a hash of the whole path. */
  static long blockHash(List<Integer> path, int length) {
    long h = 0x1234_5678L;
    for (int i = 0; i < length; i++) {
      h = mix(h * 31 + path.get(i) + 1);
    }
    return h;
  }

  static long[] query(List<Integer> path) {
    long[] q = new long[path.size()];
    for (int i = 0; i < q.length; i++) {
      q[i] = tokensHash(path.get(i));
    }
    return q;
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private final NaiveIndex model;

  Scenario(NaiveIndex model) {
    this.model = model;
  }

  /** The action {@code step} stands for in the model's current state; does not apply it. */
  Action next(Step step) {
    WorkerRank rank = rank(step.worker());
    List<Integer> path = step.tokens();
    long[] query = query(path);
    List<Long> held = model.heldHashes(rank);
    Kind kind = step.kind();
    if (held.isEmpty()
        && (kind == Kind.MOVE
            || kind == Kind.CYCLE
            || kind == Kind.REMOVE
            || kind == Kind.REMOVE_UNKNOWN)) {
      kind = Kind.STORE;
    }
    switch (kind) {
      case STORE:
      case STORE_SECOND_HASH:
        {
          int heldPrefix = 0;
          while (heldPrefix < path.size() && model.holds(rank, blockHash(path, heldPrefix + 1))) {
            heldPrefix++;
          }
          int from = Math.min(Math.min(step.from(), heldPrefix), path.size() - 1);
          return event(rank, storePath(path, from, kind == Kind.STORE_SECOND_HASH), query);
        }
      case STORE_ANY_PARENT:
        return event(rank, storePath(path, step.from() % path.size(), false), query);
      case MOVE:
        {
          long moved = held.get(step.pick1() % held.size());
          int parentPick = step.pick2() % (held.size() + 1);
          Long parent = parentPick == held.size() ? null : held.get(parentPick);
          return event(
              rank,
              KvCacheEvent.stored(
                  parent, new StoredBlock(moved, tokensHash(step.pick3() % ALPHABET))),
              query);
        }
      case CYCLE:
        {
          long parent = held.get(step.pick1() % held.size());
          long t = tokensHash(step.pick3() % ALPHABET);
          if (step.pick3() % 2 == 0) {
            List<Long> chain = model.chain(rank, parent);
            long ancestor = chain.get(step.pick2() % chain.size());
            return event(rank, KvCacheEvent.stored(parent, new StoredBlock(ancestor, t)), query);
          }
          long fresh = 0xF00D_0000L + step.pick2();
          return event(
              rank,
              KvCacheEvent.stored(parent, new StoredBlock(fresh, t), new StoredBlock(fresh, t)),
              query);
        }
      case REMOVE:
        {
          int count = 1 + step.pick3() % 3;
          long[] hashes = new long[count];
          int[] picks = {step.pick1(), step.pick2(), step.pick1() + step.pick2()};
          for (int i = 0; i < count; i++) {
            hashes[i] = held.get(picks[i] % held.size());
          }
          return event(rank, KvCacheEvent.removed(hashes), query);
        }
      case REMOVE_UNKNOWN:
        return event(
            rank,
            KvCacheEvent.removed(0xDEAD_0000L + step.pick1(), held.get(step.pick2() % held.size())),
            query);
      case CLEAR:
        return event(rank, KvCacheEvent.cleared(), query);
      case REMOVE_WORKER:
        return new Action(null, null, rank.workerId(), query);
      default:
        throw new AssertionError(kind);
    }
  }

  private static Action event(WorkerRank rank, KvCacheEvent event, long[] query) {
    return new Action(rank, event, null, query);
  }

  /** Stores {@code path[from..]} below {@code path[..from]}; a second hash family if asked. */
  private static KvCacheEvent storePath(List<Integer> path, int from, boolean secondHash) {
    Long parent = from == 0 ? null : blockHash(path, from);
    List<StoredBlock> blocks = new ArrayList<>();
    for (int j = from; j < path.size(); j++) {
      long hash = blockHash(path, j + 1);
      blocks.add(new StoredBlock(secondHash ? hash ^ SALT : hash, tokensHash(path.get(j))));
    }
    return new KvCacheEvent.Stored(parent, blocks);
  }
}
