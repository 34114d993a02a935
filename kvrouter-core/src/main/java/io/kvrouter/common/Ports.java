package io.kvrouter.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Port choice for servers that run one instance per event loop on a shared port. */
public final class Ports {
  private Ports() {}

  /**
   * {@code port} itself, or for 0 a port that is free on {@code host} now. Vert.x shares a port
   * among server instances only when they listen on the same explicit port (instances listening on
   * 0 each get their own), so a requested 0 is resolved once, before the instances start.
   */
  public static int resolve(String host, int port) {
    if (port != 0) {
      return port;
    }
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getByName(host), 0));
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot find a free port on " + host, e);
    }
  }
}
