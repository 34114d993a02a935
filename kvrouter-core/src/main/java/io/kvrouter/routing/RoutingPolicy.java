package io.kvrouter.routing;

import io.kvrouter.config.RouterMode;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.RouteExplanation;
import io.kvrouter.protocol.RouterEvent;
import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.WorkerStatus;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletionStage;

/**
 * A routing policy ({@link RouterMode}): which worker takes a request, and what the policy keeps
 * about the requests it routed. The live router ({@link PushRouter}) and the simulator drive the
 * same implementation, built by {@link RoutingPolicies}: for each request they {@link #choose} a
 * worker, {@link #book} the request there, tell the {@link Booking} when the first output arrives,
 * and release it once when the request ends there, however it ends.
 *
 * <p>Threads: the live router calls every method from any event loop at once, so implementations
 * are thread-safe and never block (a short {@code synchronized} section is fine where a policy's
 * state needs one; such policies say so). Nothing happens between {@link #choose} and {@link #book}
 * under a lock: two requests may be chosen on the same loads, as in Dynamo. The simulator calls
 * from one thread, and a policy it builds gives the same choices for the same seed.
 */
public interface RoutingPolicy {

  /** The policy's name: the {@code --router-mode} it was built for. */
  RouterMode mode();

  /**
   * Chooses the worker for {@code prompt} among {@code candidates}, booking nothing.
   *
   * @param candidates the workers that may take it: never empty; the live router's healthy workers
   *     not yet tried for this request
   * @throws io.kvrouter.protocol.AllWorkersBusyException when a busy threshold excludes every
   *     candidate
   */
  <W extends RouteCandidate> Choice<W> choose(Prompt prompt, List<W> candidates);

  /**
   * Books {@code requestId} where {@code choice}, which this policy made for {@code prompt}, sends
   * it; the caller releases the booking when the request ends there.
   */
  Booking book(String requestId, Prompt prompt, Choice<?> choice);

  /**
   * What {@link #choose} would choose among {@code candidates} and why, booking nothing; empty when
   * this policy has no costs to show.
   */
  default Optional<RouteExplanation> explain(
      Prompt prompt, List<? extends RouteCandidate> candidates) {
    return Optional.empty();
  }

  /** The policy's view of {@code worker}'s KV load and cache; empty when it keeps none. */
  default Optional<WorkerStatus.KvView> kvView(RouteCandidate worker) {
    return Optional.empty();
  }

  /** Whether the policy follows the workers' KV cache events ({@link #kvEvent}). */
  default boolean followsKvEvents() {
    return false;
  }

  /**
   * {@code rank}'s KV cache changed; called in the order the rank's events happened, returns at
   * once. Ignored by policies that do not {@linkplain #followsKvEvents follow KV events}.
   */
  default void kvEvent(WorkerRank rank, KvCacheEvent event) {}

  /**
   * The policy's KV index as events that rebuild it, after the events given before this call; empty
   * when it keeps no KV index.
   */
  default Optional<CompletionStage<List<RouterEvent>>> dumpKvIndex() {
    return Optional.empty();
  }

  /**
   * {@code worker} joined the router's set of workers: from now on it may be a candidate. Called
   * once per joining (the workers the router starts with join too), from any thread, before the
   * worker is first offered to {@link #choose}.
   */
  default void workerJoined(RouteCandidate worker) {}

  /**
   * {@code worker} left the router's set of workers: it is never a candidate again, and whatever
   * the policy keeps for it goes now (its KV index entries, loads, books, meters). Requests still
   * running there keep their bookings until they end; releasing a booking the policy has already
   * dropped does nothing. A worker that joins again under the same id is announced by {@link
   * #workerJoined} and starts from nothing. Called from any thread.
   */
  default void workerLeft(RouteCandidate worker) {}

  /** The worker {@code workerId} failed (unreachable or died): whatever it cached is lost. */
  default void workerLost(String workerId) {}

  /** Stops background work. */
  default void close() {}

  /**
   * A policy's choice for one request.
   *
   * @param worker the candidate chosen
   * @param dpRank the data-parallel rank chosen too, which the worker must be told; empty when the
   *     worker picks its rank itself
   * @param cost what a KV policy weighed for the rank it chose; its {@link #book} needs it
   */
  record Choice<W extends RouteCandidate>(W worker, OptionalInt dpRank, Optional<WorkerCost> cost) {
    public Choice {
      Objects.requireNonNull(worker, "worker");
      Objects.requireNonNull(dpRank, "dpRank");
      Objects.requireNonNull(cost, "cost");
    }

    /** {@code worker}, left to pick its own rank, chosen without costs. */
    public static <W extends RouteCandidate> Choice<W> of(W worker) {
      return new Choice<>(worker, OptionalInt.empty(), Optional.empty());
    }
  }

  /** The load a routed request holds in the policy's books, until it ends on its worker. */
  interface Booking {
    /** For policies that book nothing. */
    Booking NONE =
        new Booking() {
          @Override
          public void firstOutput() {}

          @Override
          public void release() {}
        };

    /** The worker produced the request's first output: its prompt is prefilled. */
    void firstOutput();

    /** The request ended on the worker (completed, failed or cancelled); called at most once. */
    void release();
  }
}
