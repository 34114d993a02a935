package io.kvrouter.protocol;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Why the KV router would send a prompt where it would, computed without booking anything: what
 * {@code POST /router/explain} answers.
 *
 * @param inputTokens the prompt's tokens
 * @param blockSize tokens per KV block
 * @param requestBlocks the prompt's complete blocks
 * @param chosen the worker rank the router would choose now; empty when every worker is busy or
 *     none is healthy
 * @param workers every healthy worker rank's cost, in configuration order
 */
public record RouteExplanation(
    int inputTokens,
    int blockSize,
    int requestBlocks,
    Optional<WorkerRank> chosen,
    List<WorkerCost> workers) {

  public RouteExplanation {
    Objects.requireNonNull(chosen, "chosen");
    workers = List.copyOf(workers);
  }
}
