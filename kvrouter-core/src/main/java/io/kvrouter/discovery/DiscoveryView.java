package io.kvrouter.discovery;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a watcher has told its {@link DiscoveryListener} so far (records by key), and the one place
 * that turns a change of that view into the listener's calls, as {@link DiscoveryListener}
 * describes them: an instance whose value changes is updated, a card or channel goes down then up.
 * A listener that throws is logged and does not stop the watcher. Not thread-safe: a watcher calls
 * it from its one thread.
 */
public final class DiscoveryView {
  private static final Logger LOG = LoggerFactory.getLogger(DiscoveryView.class);

  private final DiscoveryListener listener;
  private final Map<String, DiscoveryRecord> known = new LinkedHashMap<>();

  public DiscoveryView(DiscoveryListener listener) {
    this.listener = listener;
  }

  /** The record last reported up at {@code key}, or null. */
  public DiscoveryRecord get(String key) {
    return known.get(key);
  }

  /**
   * The view becomes {@code listed}: downs for the keys it lacks (in the order they came up), then
   * ups or updates for what is new or changed (in {@code listed}'s order).
   */
  public void replaceAll(Map<String, DiscoveryRecord> listed) {
    List<String> gone = new ArrayList<>();
    for (String key : known.keySet()) {
      if (!listed.containsKey(key)) {
        gone.add(key);
      }
    }
    gone.forEach(this::remove);
    listed.forEach(this::put);
  }

  /** {@code record} is now at {@code key}: reported unless it is already what the view holds. */
  public void put(String key, DiscoveryRecord record) {
    DiscoveryRecord previous = known.put(key, record);
    if (record.equals(previous)) {
      return;
    }
    try {
      if (record instanceof InstanceRecord instance) {
        if (previous == null) {
          listener.instanceUp(instance);
        } else {
          listener.instanceUpdated((InstanceRecord) previous, instance);
        }
        return;
      }
      if (previous != null) {
        reportDown(previous);
      }
      if (record instanceof ModelCardRecord card) {
        listener.cardUp(card);
      } else {
        listener.channelUp((EventChannelRecord) record);
      }
    } catch (RuntimeException e) {
      LOG.error("discovery listener failed on {}", key, e);
    }
  }

  /** {@code key} is gone: its last record is reported down, if it was up. */
  public void remove(String key) {
    DiscoveryRecord last = known.remove(key);
    if (last == null) {
      return;
    }
    try {
      reportDown(last);
    } catch (RuntimeException e) {
      LOG.error("discovery listener failed on {}", key, e);
    }
  }

  /** Tells the listener the view equals the store's (after a listing). */
  public void synced() {
    try {
      listener.synced();
    } catch (RuntimeException e) {
      LOG.error("discovery listener failed on synced()", e);
    }
  }

  private void reportDown(DiscoveryRecord last) {
    if (last instanceof InstanceRecord instance) {
      listener.instanceDown(instance);
    } else if (last instanceof ModelCardRecord card) {
      listener.cardDown(card);
    } else {
      listener.channelDown((EventChannelRecord) last);
    }
  }
}
