package io.kvrouter.events.zmq;

/**
 * The one thread that owns a publisher's or subscriber's ZeroMQ sockets (they are not thread-safe):
 * its body loops while {@link #running()} and closes the sockets on its way out.
 */
final class SocketThread {
  private final Thread thread;
  private volatile boolean running = true;

  SocketThread(String name, Runnable body) {
    this.thread = new Thread(body, name);
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  boolean running() {
    return running;
  }

  /** Asks the body to stop and waits up to 2 s for it. */
  void stop() {
    running = false;
    try {
      thread.join(2_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
