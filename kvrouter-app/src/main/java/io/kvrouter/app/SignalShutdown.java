package io.kvrouter.app;

import io.vertx.core.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * Turns SIGTERM and SIGINT into an orderly stop that exits with status 0. Left to the JVM, a signal
 * runs the shutdown hooks and exits with 128 + the signal's number (143 for SIGTERM), which
 * Kubernetes, systemd and {@code docker stop} report as a failure even after a clean drain. Here
 * the first signal starts {@code stop} on its own thread and exits 0 once it completes (1 if it
 * fails); a second signal during the stop calls {@code hurry} (for the router: end the grace period
 * now). Other ways the JVM may exit still run {@code stop} from a shutdown hook.
 */
final class SignalShutdown {
  private static final Logger log = LoggerFactory.getLogger(SignalShutdown.class);

  private final String process;
  private final Supplier<Future<Void>> stop;
  private final Runnable hurry;
  private final AtomicBoolean signalled = new AtomicBoolean();
  private Future<Void> stopped;

  private SignalShutdown(String process, Supplier<Future<Void>> stop, Runnable hurry) {
    this.process = process;
    this.stop = stop;
    this.hurry = hurry;
  }

  /**
   * @param process what is stopping, for the log ("router", "worker")
   */
  static void install(String process, Supplier<Future<Void>> stop, Runnable hurry) {
    SignalShutdown shutdown = new SignalShutdown(process, stop, hurry);
    Signal.handle(new Signal("TERM"), shutdown::onSignal);
    Signal.handle(new Signal("INT"), shutdown::onSignal);
    Runtime.getRuntime().addShutdownHook(new Thread(shutdown::awaitStop, "kvrouter-shutdown-hook"));
  }

  private void onSignal(Signal signal) {
    if (signalled.compareAndSet(false, true)) {
      log.info("SIG{} received: the {} is shutting down", signal.getName(), process);
      new Thread(this::stopAndExit, "kvrouter-shutdown").start();
    } else {
      log.info(
          "SIG{} received again: the {} stops without waiting any longer",
          signal.getName(),
          process);
      hurry.run();
    }
  }

  private synchronized Future<Void> stopOnce() {
    if (stopped == null) {
      stopped = stop.get();
    }
    return stopped;
  }

  private void stopAndExit() {
    int status = awaitStop() ? 0 : 1;
    System.exit(status);
  }

  /** Starts {@code stop} unless it has started, and waits for it to complete. */
  private boolean awaitStop() {
    try {
      stopOnce().toCompletionStage().toCompletableFuture().join();
      return true;
    } catch (RuntimeException e) {
      log.error("the {} did not stop cleanly", process, e);
      return false;
    }
  }
}
