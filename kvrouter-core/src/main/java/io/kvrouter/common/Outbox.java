package io.kvrouter.common;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A bounded queue emptied in order by a thread of its own, for sends that must not wait on the
 * caller's thread (publishing to a broker from an event loop): {@link #offer} never blocks, and
 * {@link #close} gives what is queued a grace period to go out.
 *
 * <p>The sender is called on the outbox's thread, one item at a time; an exception it throws is
 * handed to {@code onError} and the next item goes on.
 */
public final class Outbox<T> implements AutoCloseable {
  private static final long POLL_MILLIS = 100;

  /** What {@link #offer} did with an item. */
  public enum Offered {
    QUEUED,
    /** The queue was full: the item is dropped. */
    FULL,
    /** The outbox is closing: the item is dropped. */
    CLOSED
  }

  private final BlockingQueue<T> queue;
  private final Consumer<T> sender;
  private final Consumer<RuntimeException> onError;
  private final Thread thread;
  private volatile boolean closed;

  /** Past the grace period: the thread stops even if items are left. */
  private volatile boolean stopped;

  /**
   * @param name the thread's name
   * @param capacity the most items queued at once
   */
  public Outbox(String name, int capacity, Consumer<T> sender, Consumer<RuntimeException> onError) {
    this.queue = new ArrayBlockingQueue<>(capacity);
    this.sender = Objects.requireNonNull(sender, "sender");
    this.onError = Objects.requireNonNull(onError, "onError");
    this.thread = new Thread(this::run, name);
    thread.setDaemon(true);
  }

  /** Starts the sending thread. */
  public Outbox<T> start() {
    thread.start();
    return this;
  }

  public Offered offer(T item) {
    Objects.requireNonNull(item, "item");
    if (closed) {
      return Offered.CLOSED;
    }
    return queue.offer(item) ? Offered.QUEUED : Offered.FULL;
  }

  private void run() {
    while (!stopped && (!closed || !queue.isEmpty())) {
      T item;
      try {
        item = queue.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return; // closing, and out of time
      }
      if (item == null) {
        continue;
      }
      try {
        sender.accept(item);
      } catch (RuntimeException e) {
        onError.accept(e);
      }
    }
  }

  /**
   * Takes no more items, gives the thread {@code grace} to send what is queued, then stops it.
   *
   * @return how many items were left unsent
   */
  public int close(Duration grace) {
    closed = true;
    try {
      thread.join(grace.toMillis());
      stopped = true;
      thread.interrupt(); // a sender blocked on something interruptible gives up
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int unsent = queue.size();
    queue.clear();
    return unsent;
  }

  /** Closes with a grace period of two seconds. */
  @Override
  public void close() {
    close(Duration.ofSeconds(2));
  }
}
