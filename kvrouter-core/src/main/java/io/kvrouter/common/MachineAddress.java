package io.kvrouter.common;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;

/**
 * How other machines reach this one when a server listens on every interface: the first
 * non-loopback IPv4 address of an interface that is up, else {@code 127.0.0.1} (as Dynamo's
 * local-IP detection falls back).
 */
public final class MachineAddress {
  private MachineAddress() {}

  public static String firstIpv4() {
    try {
      for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        if (!nic.isUp() || nic.isLoopback()) {
          continue;
        }
        for (InetAddress address : Collections.list(nic.getInetAddresses())) {
          if (address instanceof Inet4Address && !address.isLoopbackAddress()) {
            return address.getHostAddress();
          }
        }
      }
    } catch (SocketException e) {
      // no interfaces to list: fall back to loopback
    }
    return "127.0.0.1";
  }

  /**
   * {@code host}, unless it is a wildcard ({@code 0.0.0.0}, {@code ::}), then {@link #firstIpv4}.
   */
  public static String advertised(String host) {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]") ? firstIpv4() : host;
  }
}
