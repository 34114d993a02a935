package io.kvrouter.routing.index;

/**
 * What applying one event did (Dynamo's {@code KvCacheEventError} plus success). The label is the
 * {@code status} tag value of {@link io.kvrouter.metrics.MetricNames#KV_CACHE_EVENTS_APPLIED}, as
 * Dynamo spells it.
 */
enum Outcome {
  APPLIED("ok"),
  /** A {@code Stored} event named a parent the worker rank does not hold; nothing was applied. */
  PARENT_BLOCK_NOT_FOUND("parent_block_not_found"),
  /** A {@code Removed} event named blocks the worker rank does not hold; the rest were removed. */
  BLOCK_NOT_FOUND("block_not_found"),
  /** A {@code Stored} event would have made a block its own ancestor; nothing was applied. */
  INVALID_BLOCK_SEQUENCE("invalid_block");

  final String label;

  Outcome(String label) {
    this.label = label;
  }
}
