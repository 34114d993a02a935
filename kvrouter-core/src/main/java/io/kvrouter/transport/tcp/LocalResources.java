package io.kvrouter.transport.tcp;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * Tells a failure of the router's own resources from a worker's. A connect that fails because the
 * process (EMFILE) or the system (ENFILE) is out of file descriptors says nothing about the worker,
 * which must stay in rotation; the JDK and Netty report it only as the operating system's message,
 * so the message is what is matched. A worker that does not answer in time may only have found the
 * router unable to accept its call-home connection: while the router cannot open a socket, that is
 * not held against the worker either.
 */
final class LocalResources {
  /** strerror of EMFILE; ENFILE's is "Too many open files in system". */
  private static final String OUT_OF_DESCRIPTORS = "Too many open files";

  private LocalResources() {}

  /**
   * Whether {@code failure} is the router out of file descriptors: one of its causes says so, or it
   * has none to say what happened (a timeout, a closed connection) and the router cannot open a
   * socket now.
   */
  static boolean exhausted(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (saysOutOfDescriptors(t)) {
        return true;
      }
    }
    return failure == null && cannotOpenASocket();
  }

  private static boolean saysOutOfDescriptors(Throwable t) {
    return t.getMessage() != null && t.getMessage().contains(OUT_OF_DESCRIPTORS);
  }

  /** Opens and closes an unconnected socket: the one sure test of a descriptor left. */
  private static boolean cannotOpenASocket() {
    try {
      SocketChannel.open().close();
      return false;
    } catch (IOException e) {
      return saysOutOfDescriptors(e);
    }
  }
}
