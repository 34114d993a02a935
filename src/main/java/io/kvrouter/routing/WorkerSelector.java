package io.kvrouter.routing;

import java.util.List;

/** Chooses one worker among candidates; stateless apart from its own cursor or random source. */
interface WorkerSelector {
  /** Returns an index into {@code candidates}, which is never empty. */
  int select(List<WorkerState> candidates);
}
