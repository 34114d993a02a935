package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.netty.channel.ChannelException;
import java.net.ConnectException;
import java.net.SocketException;
import org.junit.jupiter.api.Test;

/** Whom a failed call blames: the worker, unless the router itself ran out of descriptors. */
class PendingCallTest {
  private static PendingCall<CallHomeStream> call() {
    return new PendingCall<>(
        "subject",
        new WorkerEndpoint("w1", "127.0.0.1", 9001, "generate"),
        "r1",
        (context, link, c) -> {
          throw new AssertionError("no stream opens in these tests");
        },
        c -> {});
  }

  private static WorkerUnavailableException failure(PendingCall<?> call) {
    assertThat(call.future().failed()).isTrue();
    return (WorkerUnavailableException) call.future().cause();
  }

  @Test
  void connectRefused_isTheWorkersFault() {
    PendingCall<CallHomeStream> call = call();
    call.fail(
        "cannot connect to 127.0.0.1:9001: Connection refused",
        new ConnectException("Connection refused"));
    assertThat(failure(call).workerFault()).isTrue();
  }

  /** How NIO reports a socket it could not open at the process's descriptor limit (EMFILE). */
  @Test
  void connectWithoutAFileDescriptorLeft_isNotTheWorkersFault() {
    PendingCall<CallHomeStream> call = call();
    call.fail(
        "cannot connect to 127.0.0.1:9001: Failed to open a socket.",
        new ChannelException(
            "Failed to open a socket.", new SocketException("Too many open files")));
    WorkerUnavailableException failure = failure(call);
    assertThat(failure.workerFault()).isFalse();
    assertThat(failure.workerId()).isEqualTo("w1");
    assertThat(failure).hasMessageContaining("the router is out of file descriptors");
  }

  /** ENFILE: the whole system is out of descriptors. */
  @Test
  void connectWithTheSystemOutOfFileDescriptors_isNotTheWorkersFault() {
    PendingCall<CallHomeStream> call = call();
    call.fail("cannot connect", new SocketException("Too many open files in system"));
    assertThat(failure(call).workerFault()).isFalse();
  }
}
