package io.kvrouter.routing.index;

/**
 * Event counts of a {@link KvIndexer} since it started. A {@code Removed} event that names some
 * blocks the worker does not hold counts once under {@code blockNotFound}, though its other blocks
 * were removed.
 *
 * @param applied events applied in full
 * @param parentBlockNotFound {@code Stored} events dropped because the worker does not hold the
 *     parent
 * @param blockNotFound {@code Removed} events naming blocks the worker does not hold
 * @param invalidBlockSequence {@code Stored} events dropped because a block would be its own
 *     ancestor
 * @param pending events accepted and not yet applied
 */
public record KvIndexerStats(
    long applied,
    long parentBlockNotFound,
    long blockNotFound,
    long invalidBlockSequence,
    long pending) {

  /** Events rejected in full or in part. */
  public long rejected() {
    return parentBlockNotFound + blockNotFound + invalidBlockSequence;
  }
}
