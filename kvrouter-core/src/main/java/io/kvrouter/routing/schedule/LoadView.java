package io.kvrouter.routing.schedule;

import io.kvrouter.protocol.WorkerRank;

/** Read access to the predicted load of worker ranks. */
public interface LoadView {

  /** The load of {@code worker}; {@link WorkerLoad#IDLE} for a rank with nothing active. */
  default WorkerLoad load(WorkerRank worker) {
    return load(worker, new long[0]);
  }

  /**
   * The load of {@code worker}, read at one instant, with {@link WorkerLoad#newBlocks()} counting
   * the hashes of {@code blockHashes} (assumed distinct) that are not active on it.
   */
  WorkerLoad load(WorkerRank worker, long[] blockHashes);
}
