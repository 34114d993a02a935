package io.kvrouter.transport.nats;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.transport.RequestPlane;
import io.nats.client.Connection;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * Entry point of Dynamo's NATS request plane for the composition root: the frontend's client. The
 * worker side is {@link NatsWorkerServer}. The NATS connection is the caller's (one that reconnects
 * by itself); responses come back on the TCP call-home listener, configured as for the TCP plane.
 */
public final class NatsTransport {
  private NatsTransport() {}

  /**
   * A request plane that sends each request to its worker's {@link
   * io.kvrouter.protocol.WorkerEndpoint#natsSubject() NATS subject} on {@code nats} (the current
   * connection, {@code null} while there is none yet), and receives the responses on a call-home
   * listener bound to {@code config.responseStreamHost()} and {@code responseStreamPort()}.
   */
  public static RequestPlane client(Vertx vertx, TcpConfig config, Supplier<Connection> nats) {
    return new NatsRequestPlane(vertx, config, nats);
  }
}
