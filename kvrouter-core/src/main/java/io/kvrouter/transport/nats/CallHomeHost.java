package io.kvrouter.transport.nats;

import io.kvrouter.common.MachineAddress;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.transport.tcp.CallHomeRequests;

/**
 * The host a worker reached over NATS is told to call back. On TCP the router names the local
 * address of the connection the request leaves on; a NATS request leaves on the connection to the
 * NATS server, which says nothing about how the worker reaches the router. So: the configured
 * advertise host ({@code --tcp-response-stream-advertise-host}); else the listener's host when it
 * is bound to one address; else this machine's first non-loopback IPv4 address, else {@code
 * 127.0.0.1}.
 */
final class CallHomeHost {
  private CallHomeHost() {}

  static String of(TcpConfig config) {
    String configured = CallHomeRequests.configuredCallHomeHost(config);
    return configured != null ? configured : MachineAddress.firstIpv4();
  }
}
