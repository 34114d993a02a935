package io.kvrouter.discovery;

/**
 * What a discovery watcher reports, on one thread and in the order the store changed. After the
 * first {@link #synced()} the listener's view (every record reported up and not since down) equals
 * the store's; after a lost connection or a compacted history the watcher lists the store again and
 * reports only the difference (downs for what is gone, ups or updates for what is new or changed),
 * then {@code synced()} again.
 *
 * <p>A card or channel whose value changes under the same key is reported down (the old record)
 * then up (the new one); an instance is reported as updated. A value the watcher cannot read is
 * logged and skipped (a key already known keeps its last readable record, as Dynamo does).
 * Callbacks must not block for long: they hold up the events behind them.
 */
public interface DiscoveryListener {

  void instanceUp(InstanceRecord instance);

  /** The same key now holds another value (e.g. a new transport address). */
  void instanceUpdated(InstanceRecord previous, InstanceRecord current);

  /**
   * The key was deleted (unregistered, lease revoked or expired); {@code last} is its last value.
   */
  void instanceDown(InstanceRecord last);

  void cardUp(ModelCardRecord card);

  void cardDown(ModelCardRecord last);

  void channelUp(EventChannelRecord channel);

  void channelDown(EventChannelRecord last);

  /** The view reported so far equals the store's at one revision (after each list). */
  default void synced() {}
}
