package io.kvrouter.app;

import io.kvrouter.common.DaemonThreads;
import io.kvrouter.config.KubeDiscoveryConfig;
import io.kvrouter.config.PodWorkers;
import io.kvrouter.discovery.kube.ReadyPodWatcher;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plain engines found as Kubernetes pods ({@code --worker-selector}) in the router's worker set:
 * each pod that turns ready joins as worker {@code POD_NAME} at its IP ({@link PodWorkers#worker}),
 * and leaves when it is not ready any more or is deleted. The watcher reports on its own thread;
 * the joins and leaves, which may block, run in order on one thread of this class's own.
 */
final class PodFleet implements ReadyPodWatcher.Listener, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PodFleet.class);

  private final WorkerFleet fleet;
  private final PodWorkers pods;
  private final ExecutorService thread =
      Executors.newSingleThreadExecutor(DaemonThreads.named("pod-workers"));
  private ReadyPodWatcher watcher;

  private PodFleet(WorkerFleet fleet, PodWorkers pods) {
    this.fleet = fleet;
    this.pods = pods;
  }

  /** Starts watching, once the first listing is in; blocks (not for an event loop). */
  static PodFleet start(KubeDiscoveryConfig kube, PodWorkers pods, WorkerFleet fleet) {
    PodFleet podFleet = new PodFleet(fleet, pods);
    podFleet.watcher = ReadyPodWatcher.start(kube, pods.selector(), podFleet);
    return podFleet;
  }

  @Override
  public void podReady(String name, String ip) {
    apply(
        () -> {
          fleet.join(pods.worker(name, ip));
          log.info("pod {} is ready at {}: a worker now", name, ip);
        },
        name);
  }

  @Override
  public void podGone(String name) {
    apply(
        () -> {
          if (fleet.leave(name)) {
            log.info("pod {} is not ready any more: no longer a worker", name);
          }
        },
        name);
  }

  private void apply(Runnable change, String pod) {
    try {
      thread.execute(
          () -> {
            try {
              change.run();
            } catch (RuntimeException e) {
              log.warn("pod {} could not join or leave: {}", pod, e.toString());
            }
          });
    } catch (RejectedExecutionException closed) {
      // closing: the router serves no more requests
    }
  }

  @Override
  public void close() throws InterruptedException {
    if (watcher != null) {
      watcher.close();
    }
    thread.shutdown();
    thread.awaitTermination(10, TimeUnit.SECONDS);
  }
}
