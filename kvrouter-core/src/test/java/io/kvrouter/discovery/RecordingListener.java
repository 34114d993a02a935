package io.kvrouter.discovery;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A {@link DiscoveryListener} for tests: the view it was told (records by key), the events in the
 * order they came, the thread they came on, and how many times it was told the view is synced.
 */
public final class RecordingListener implements DiscoveryListener {
  private final Map<String, DiscoveryRecord> view = new HashMap<>();
  private final List<String> events = new ArrayList<>();
  private final List<String> threads = new ArrayList<>();
  private int synced;

  public synchronized Map<String, DiscoveryRecord> view() {
    return Map.copyOf(view);
  }

  public synchronized List<String> events() {
    return List.copyOf(events);
  }

  public synchronized List<String> threads() {
    return List.copyOf(threads);
  }

  public synchronized int syncs() {
    return synced;
  }

  private void up(String what, DiscoveryRecord record) {
    DiscoveryRecord before = view.put(record.key(), record);
    if (before != null) {
      throw new AssertionError(what + " up for a key already up: " + record.key());
    }
    log(what + " up " + record.key());
  }

  private void down(String what, DiscoveryRecord record) {
    DiscoveryRecord before = view.remove(record.key());
    if (!record.equals(before)) {
      throw new AssertionError(what + " down with " + record + " but the view held " + before);
    }
    log(what + " down " + record.key());
  }

  private void log(String event) {
    events.add(event);
    threads.add(Thread.currentThread().getName());
  }

  @Override
  public synchronized void instanceUp(InstanceRecord instance) {
    up("instance", instance);
  }

  @Override
  public synchronized void instanceUpdated(InstanceRecord previous, InstanceRecord current) {
    if (!previous.equals(view.put(current.key(), current))) {
      throw new AssertionError("update from " + previous + " which the view did not hold");
    }
    log("instance updated " + current.key());
  }

  @Override
  public synchronized void instanceDown(InstanceRecord last) {
    down("instance", last);
  }

  @Override
  public synchronized void cardUp(ModelCardRecord card) {
    up("card", card);
  }

  @Override
  public synchronized void cardDown(ModelCardRecord last) {
    down("card", last);
  }

  @Override
  public synchronized void channelUp(EventChannelRecord channel) {
    up("channel", channel);
  }

  @Override
  public synchronized void channelDown(EventChannelRecord last) {
    down("channel", last);
  }

  @Override
  public synchronized void synced() {
    synced++;
    log("synced");
  }
}
