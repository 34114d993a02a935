package io.kvrouter.common;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Threads of the router's background work (watchers, writers, followers): daemons, so that none
 * keeps a JVM alive once the router has closed what it started, and named, so that a thread dump
 * says whose each is.
 */
public final class DaemonThreads {
  private DaemonThreads() {}

  /** A factory of daemon threads called {@code name}. */
  public static ThreadFactory named(String name) {
    Objects.requireNonNull(name, "name");
    return task -> {
      Thread thread = new Thread(task, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
