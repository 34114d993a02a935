package io.kvrouter.transport.tcp;

import io.kvrouter.common.Hosts;

/** A TCP address as Dynamo writes it: {@code host:port}, with IPv6 literals in brackets. */
record HostAndPort(String host, int port) {

  static HostAndPort parse(String address) {
    int colon = address.lastIndexOf(':');
    if (colon <= 0 || colon == address.length() - 1) {
      throw new IllegalArgumentException("not a host:port address: " + address);
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(address.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("not a host:port address: " + address, e);
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port out of range in " + address);
    }
    return new HostAndPort(host, port);
  }

  @Override
  public String toString() {
    return Hosts.bracketed(host) + ":" + port;
  }
}
