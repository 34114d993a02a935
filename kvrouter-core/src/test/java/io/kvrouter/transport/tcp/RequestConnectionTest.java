package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.netty.channel.ChannelException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import java.lang.reflect.Proxy;
import java.net.SocketException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection whose connect fails at once, as Netty's does when no socket can be created: the pool
 * hands it out already closed, and the request submitted to it must fail with the connect's cause,
 * so that a router out of file descriptors does not blame the worker.
 */
class RequestConnectionTest {
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void close() {
    vertx.close();
  }

  /** A client whose every connect fails at once the way NIO does at the descriptor limit. */
  private static NetClient outOfDescriptors() {
    return (NetClient)
        Proxy.newProxyInstance(
            NetClient.class.getClassLoader(),
            new Class<?>[] {NetClient.class},
            (proxy, method, args) -> {
              if (method.getName().equals("connect")) {
                return Future.failedFuture(
                    new ChannelException(
                        "Failed to open a socket.", new SocketException("Too many open files")));
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }

  @Test
  void requestOnAConnectionThatCouldNotOpen_failsWithTheConnectsCause() {
    ConnectionPool pool =
        new ConnectionPool(
            vertx,
            new PlaneClient(outOfDescriptors(), TcpConfig.defaults("127.0.0.1")),
            new HostAndPort("127.0.0.1", 9001),
            TcpConfig.defaults("127.0.0.1"));
    PendingCall<CallHomeStream> call =
        new PendingCall<>(
            "subject",
            new WorkerEndpoint("w1", "127.0.0.1", 9001, "generate"),
            "r1",
            (context, link, c) -> {
              throw new AssertionError("no stream opens");
            },
            c -> {});

    RequestConnection connection = pool.pick();
    assertThat(connection.isClosed()).as("closed before it is handed out").isTrue();
    connection.submit(call, localHost -> Buffer.buffer("frame"));

    WorkerUnavailableException failure = (WorkerUnavailableException) call.future().cause();
    assertThat(failure).hasMessageContaining("cannot connect to 127.0.0.1:9001");
    assertThat(failure.workerFault()).isFalse();
  }
}
