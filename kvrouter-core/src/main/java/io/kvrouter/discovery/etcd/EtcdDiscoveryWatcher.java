package io.kvrouter.discovery.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import io.kvrouter.common.DaemonThreads;
import io.kvrouter.common.FaultLog;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.DiscoveryBucket;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryFormatException;
import io.kvrouter.discovery.DiscoveryListener;
import io.kvrouter.discovery.DiscoveryRecord;
import io.kvrouter.discovery.DiscoveryView;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A router's view of Dynamo's discovery in etcd: the {@code v1/instances}, {@code v1/mdc} and
 * {@code v1/event_channels} buckets, reported to a {@link DiscoveryListener}.
 *
 * <p>It lists everything under {@code v1/} in one range read (one revision for all three buckets),
 * reports the difference to what the listener was told before, then watches {@code v1/} from the
 * listed revision + 1, so no change is lost or reported twice. When the watch fails (etcd
 * unreachable or restarted, the stream closed, or the start revision compacted away) it lists again
 * (retrying every 0.5 to 2 s while etcd does not answer) and reports only the difference: what
 * vanished meanwhile goes down, what appeared comes up. This is Dynamo's latest contract (a {@code
 * Resync} snapshot first and whenever the watcher fell behind; kv.rs @0cb51b5d); Dynamo's etcd
 * store itself resumes from the last revision + 1 without a snapshot (etcd.rs @6a7d2f73), which
 * misses deletes on a compaction or an etcd that lost its data.
 *
 * <p>Everything, the listener's callbacks included, runs on one thread of its own, in the store's
 * order. Keys of other buckets under {@code v1/} are ignored; a value that cannot be read is logged
 * ({@link FaultLog}) and skipped, a known key keeping its last readable record.
 */
public final class EtcdDiscoveryWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EtcdDiscoveryWatcher.class);
  private static final String ROOT = "v1/";
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final long FIRST_RETRY_MILLIS = 500;
  private static final long MAX_RETRY_MILLIS = 2_000;

  private final Client client;
  private final boolean ownsClient;
  private final DiscoveryView view;
  private final ScheduledExecutorService thread;
  private final FaultLog unreadable = FaultLog.of(LOG, "unreadable etcd discovery values");

  // all on `thread`
  private long generation;
  private Watch.Watcher watcher;
  private boolean relistScheduled;
  private int failures;
  private boolean closed;

  private EtcdDiscoveryWatcher(Client client, boolean ownsClient, DiscoveryListener listener) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.view = new DiscoveryView(listener);
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("etcd-discovery-watcher"));
  }

  /** Starts watching the etcd {@code config} names, with a client of its own. */
  public static EtcdDiscoveryWatcher start(EtcdConfig config, DiscoveryListener listener) {
    return start(EtcdClients.connect(config), true, listener);
  }

  /** Starts watching through {@code client}, which stays the caller's to close. */
  public static EtcdDiscoveryWatcher start(Client client, DiscoveryListener listener) {
    return start(client, false, listener);
  }

  private static EtcdDiscoveryWatcher start(
      Client client, boolean ownsClient, DiscoveryListener listener) {
    EtcdDiscoveryWatcher watcher = new EtcdDiscoveryWatcher(client, ownsClient, listener);
    watcher.thread.execute(watcher::list);
    return watcher;
  }

  /** Lists the buckets, reports the difference, and watches from the next revision. */
  private void list() {
    relistScheduled = false;
    if (closed) {
      return;
    }
    generation++;
    stopWatching();
    GetResponse listed;
    try {
      listed =
          client
              .getKVClient()
              .get(EtcdClients.bytes(ROOT), GetOption.builder().isPrefix(true).build())
              .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } catch (Exception e) {
      retryListing("listing " + ROOT + " failed: " + e);
      return;
    }
    if (failures > 0) {
      LOG.info(
          "etcd answers again; listed {} at revision {}", ROOT, listed.getHeader().getRevision());
    }
    failures = 0;
    view.replaceAll(read(listed.getKvs()));
    view.synced();
    long watchGeneration = generation;
    watcher =
        client
            .getWatchClient()
            .watch(
                EtcdClients.bytes(ROOT),
                WatchOption.builder()
                    .isPrefix(true)
                    .withRevision(listed.getHeader().getRevision() + 1)
                    .build(),
                Watch.listener(
                    response -> onThread(watchGeneration, () -> apply(response)),
                    error -> onThread(watchGeneration, () -> lost(error.toString())),
                    () -> onThread(watchGeneration, () -> lost("the watch ended"))));
  }

  private Map<String, DiscoveryRecord> read(List<KeyValue> kvs) {
    Map<String, DiscoveryRecord> listed = new LinkedHashMap<>();
    for (KeyValue kv : kvs) {
      String key = kv.getKey().toString(StandardCharsets.UTF_8);
      if (DiscoveryBucket.of(key).isEmpty()) {
        continue;
      }
      DiscoveryRecord record = decode(key, kv.getValue().getBytes());
      if (record == null) {
        record = view.get(key);
      }
      if (record != null) {
        listed.put(key, record);
      }
    }
    return listed;
  }

  private void apply(WatchResponse response) {
    for (WatchEvent event : response.getEvents()) {
      String key = event.getKeyValue().getKey().toString(StandardCharsets.UTF_8);
      if (DiscoveryBucket.of(key).isEmpty()) {
        continue;
      }
      if (event.getEventType() == WatchEvent.EventType.DELETE) {
        view.remove(key);
      } else if (event.getEventType() == WatchEvent.EventType.PUT) {
        DiscoveryRecord record = decode(key, event.getKeyValue().getValue().getBytes());
        if (record != null) {
          view.put(key, record);
        }
      }
    }
  }

  /** The watch failed: list again (at once, then with growing pauses while etcd is away). */
  private void lost(String reason) {
    stopWatching();
    if (relistScheduled || closed) {
      return;
    }
    LOG.warn("etcd discovery watch lost ({}); listing again", reason);
    relistScheduled = true;
    thread.schedule(this::list, FIRST_RETRY_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void retryListing(String reason) {
    failures++;
    long delay = Math.min(MAX_RETRY_MILLIS, FIRST_RETRY_MILLIS << Math.min(failures - 1, 4));
    if (failures == 1 || failures % 30 == 0) {
      LOG.warn("{}; retrying every {} ms (attempt {})", reason, delay, failures);
    }
    relistScheduled = true;
    thread.schedule(this::list, delay, TimeUnit.MILLISECONDS);
  }

  private DiscoveryRecord decode(String key, byte[] value) {
    try {
      return DiscoveryCodec.decode(key, value);
    } catch (DiscoveryFormatException e) {
      unreadable.fault(e.getMessage());
      return null;
    }
  }

  /** Runs {@code task} on the watcher's thread unless a newer listing replaced that watch. */
  private void onThread(long watchGeneration, Runnable task) {
    try {
      thread.execute(
          () -> {
            if (watchGeneration == generation && !closed) {
              task.run();
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException closing) {
      // closed: the watch's last words are not needed
    }
  }

  private void stopWatching() {
    if (watcher != null) {
      Watch.Watcher w = watcher;
      watcher = null;
      w.close();
    }
  }

  /** Stops watching (the listener hears nothing more) and closes the client if it is its own. */
  @Override
  public void close() {
    try {
      thread
          .submit(
              () -> {
                closed = true;
                stopWatching();
              })
          .get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.debug("closing the etcd discovery watcher", e);
    }
    thread.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }
}
