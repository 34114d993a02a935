package io.kvrouter.worker.kv;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time in the order they were queued, on the threads that call {@link
 * #drain()}, without a thread of its own and without making anyone wait: a caller that finds
 * another thread draining leaves its task to that thread. This lets {@link BlockPool} queue changes
 * under its lock (so their order is the order of the operations) and hand them to listeners after
 * releasing it (so a listener never holds up other requests, and may call back in).
 */
final class OrderedDelivery {
  private static final Logger LOG = LoggerFactory.getLogger(OrderedDelivery.class);

  private final Queue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pending = new AtomicInteger();

  /** Queues {@code task}; call {@link #drain()} afterwards to have it run. */
  void enqueue(Runnable task) {
    queue.add(task);
  }

  /**
   * Runs queued tasks until none is left, unless another thread is already doing so (then that
   * thread runs them, including any queued before this call). A task that throws is logged and
   * skipped.
   */
  void drain() {
    if (pending.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      Runnable task;
      while ((task = queue.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException e) {
          LOG.warn("a KV event listener failed", e);
        }
      }
      missed = pending.addAndGet(-missed);
    } while (missed != 0);
  }
}
