package io.kvrouter.worker.kv;

import java.util.List;

/**
 * Receives the changes of a {@link BlockPool}: one call per pool operation that changed something,
 * with that operation's changes in the order made (evictions, then stores).
 *
 * <p>Calls never overlap and arrive in the order the operations took the pool's lock, after it was
 * released, but not always on the thread that made the change: whichever thread is delivering when
 * a change is made delivers it too. Keep the callback short and never block in it (it runs on
 * Vert.x event loops); it may call back into the pool.
 */
@FunctionalInterface
public interface BlockPoolListener {
  void onChanges(List<KvChange> changes);
}
