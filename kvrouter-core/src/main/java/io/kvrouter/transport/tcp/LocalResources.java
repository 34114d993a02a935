package io.kvrouter.transport.tcp;

/**
 * Tells a failure of the router's own resources from a worker's: a connect that fails because the
 * process (EMFILE) or the system (ENFILE) is out of file descriptors says nothing about the worker,
 * which must stay in rotation. The JDK and Netty report these only as the operating system's
 * message, so the message is what is matched.
 */
final class LocalResources {
  /** strerror of EMFILE; ENFILE's is "Too many open files in system". */
  private static final String OUT_OF_DESCRIPTORS = "Too many open files";

  private LocalResources() {}

  /** Whether {@code failure}, or any of its causes, is the router out of file descriptors. */
  static boolean exhausted(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getMessage() != null && t.getMessage().contains(OUT_OF_DESCRIPTORS)) {
        return true;
      }
    }
    return false;
  }
}
