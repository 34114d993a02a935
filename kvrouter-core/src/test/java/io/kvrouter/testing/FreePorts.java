package io.kvrouter.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Free loopback ports for servers a test starts as other processes. */
public final class FreePorts {
  private FreePorts() {}

  /**
   * The first of {@code count} consecutive ports that are all free on 127.0.0.1 now (for a
   * data-parallel worker, whose rank r binds base + r). Another process may still take one before
   * the caller binds it; loopback test ports are rarely contended.
   */
  public static int consecutive(int count) throws IOException {
    for (int attempt = 0; attempt < 50; attempt++) {
      int base;
      try (ServerSocket first = bind(0)) {
        base = first.getLocalPort();
      }
      if (base + count - 1 <= 65535 && allFree(base, count)) {
        return base;
      }
    }
    throw new IOException("found no " + count + " consecutive free ports on 127.0.0.1");
  }

  private static boolean allFree(int base, int count) {
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int port = base; port < base + count; port++) {
        held.add(bind(port));
      }
      return true;
    } catch (IOException e) {
      return false;
    } finally {
      for (ServerSocket socket : held) {
        try {
          socket.close();
        } catch (IOException e) {
          // closing a probe socket: nothing to do
        }
      }
    }
  }

  private static ServerSocket bind(int port) throws IOException {
    ServerSocket socket = new ServerSocket();
    socket.setReuseAddress(true);
    try {
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return socket;
  }
}
