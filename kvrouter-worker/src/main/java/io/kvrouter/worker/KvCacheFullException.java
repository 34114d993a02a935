package io.kvrouter.worker;

import io.kvrouter.worker.kv.KvAllocation;

/**
 * A {@link SimulatedEngine} refused a request because its prompt's blocks do not fit in the KV
 * cache, even after evicting every block no running request holds. Thrown from {@code generate()},
 * which is how an engine refuses a request: the worker answers with an error prologue and the
 * router may take the request to another worker.
 */
public final class KvCacheFullException extends RuntimeException {
  private final transient KvAllocation allocation;

  KvCacheFullException(KvAllocation allocation) {
    super(allocation.refusal(), null, false, false);
    this.allocation = allocation;
  }

  /** What the cache reported: blocks needed and blocks free. */
  public KvAllocation allocation() {
    return allocation;
  }
}
