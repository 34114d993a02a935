package io.kvrouter.common;

/** Host names and IP literals as they are written in addresses. */
public final class Hosts {
  private Hosts() {}

  /**
   * {@code host} as it stands before {@code :PORT} in an address or a URL: an IPv6 literal in
   * brackets ({@code [::1]}), anything else as it is.
   */
  public static String bracketed(String host) {
    return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
  }
}
