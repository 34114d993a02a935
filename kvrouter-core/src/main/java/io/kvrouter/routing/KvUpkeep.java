package io.kvrouter.routing;

import io.kvrouter.routing.index.ApproximateIndex;

/**
 * A KV policy's housekeeping: forgetting the blocks the approximate index learned once their TTL is
 * up, and freeing bookings whose end was never seen. The live router runs it on timers ({@link
 * TimedKvUpkeep}); the simulator before each choice ({@link #beforeEachChoice}).
 */
interface KvUpkeep extends AutoCloseable {

  /** Called by the policy before each choice. */
  void beforeChoice();

  /** Stops whatever runs in the background. */
  @Override
  void close();

  /**
   * The simulator's upkeep: learned blocks expire before each choice, on the caller's thread, so
   * every choice sees exactly the blocks whose TTL is not up on the virtual clock. Every simulated
   * request ends, so no booking needs sweeping.
   */
  static KvUpkeep beforeEachChoice(KvScheduling scheduling) {
    ApproximateIndex learned = scheduling.learned;
    return new KvUpkeep() {
      @Override
      public void beforeChoice() {
        if (learned != null) {
          learned.expire();
        }
      }

      @Override
      public void close() {}
    };
  }
}
