package io.kvrouter.routing;

import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;

/**
 * A routing policy over a fixed set of worker ranks, seen without a transport: it is given each
 * request's hashed prompt, names the rank, and hears when the request's prefill is done and when it
 * ends. This is how the simulator drives the router's policies in virtual time; the KV policies are
 * built from the same index and scheduler as {@code --router-mode kv}. Single-threaded: one caller
 * at a time.
 */
public interface RankPolicy {

  /** The policy's name, e.g. {@code kv}. */
  String name();

  /** Chooses the rank for {@code prompt} and books the request on it. */
  WorkerRank route(HashedPrompt prompt);

  /** The request produced its first token. */
  default void prefillDone(String requestId) {}

  /** The request ended. */
  void finished(String requestId);

  /** A rank's KV cache changed; ignored by policies that do not follow KV events. */
  default void kvEvent(WorkerRank rank, KvCacheEvent event) {}

  /** Whether {@link #kvEvent} feeds this policy. */
  default boolean followsKvEvents() {
    return false;
  }
}
