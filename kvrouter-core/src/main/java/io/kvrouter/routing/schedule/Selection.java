package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.WorkerCost;
import io.kvrouter.protocol.WorkerRank;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one {@link KvSelector#select}: the chosen worker rank, if any, and the cost of
 * every candidate in the order they were given.
 *
 * @param outcome whether a rank was chosen, and if not, why
 * @param chosen the chosen rank; present exactly when {@code outcome} is {@link Outcome#CHOSEN}
 * @param inputTokens the request's prompt tokens
 * @param requestBlocks the request's distinct blocks
 * @param workers each distinct candidate's cost, in candidate order
 */
public record Selection(
    Outcome outcome,
    Optional<WorkerRank> chosen,
    int inputTokens,
    int requestBlocks,
    List<WorkerCost> workers) {

  /** Whether a rank was chosen. */
  public enum Outcome {
    /** A rank was chosen. */
    CHOSEN,
    /** There were candidates and a busy filter excluded every one. */
    ALL_BUSY,
    /** There were no candidates. */
    NO_WORKERS
  }

  public Selection {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(chosen, "chosen");
    workers = List.copyOf(workers);
    if (chosen.isPresent() != (outcome == Outcome.CHOSEN)) {
      throw new IllegalArgumentException("chosen must be present exactly when outcome is CHOSEN");
    }
  }

  /** The cost of the chosen rank; empty when none was chosen. */
  public Optional<WorkerCost> chosenCost() {
    return chosen.flatMap(
        rank -> workers.stream().filter(cost -> cost.worker().equals(rank)).findFirst());
  }
}
