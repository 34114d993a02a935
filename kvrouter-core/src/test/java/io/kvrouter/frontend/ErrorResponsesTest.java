package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.WorkerStreamException;
import org.junit.jupiter.api.Test;

class ErrorResponsesTest {
  private final ErrorResponses errors = new ErrorResponses(503);

  @Test
  void aStalledWorkerStream_isAGatewayTimeoutSayingTheWorkerStoppedSending() {
    ErrorResponses.ApiError error =
        errors.of(WorkerStreamException.stalled("worker w1 stopped sending: no output for 120 s"));

    assertThat(error.status()).isEqualTo(504);
    assertThat(error.body().getJsonObject("error").getMap())
        .containsEntry("type", "server_error")
        .containsEntry("code", "worker_timeout")
        .containsEntry("message", "worker w1 stopped sending: no output for 120 s")
        .containsEntry("param", null);
  }

  @Test
  void aBrokenWorkerStream_staysABadGateway() {
    ErrorResponses.ApiError error =
        errors.of(WorkerStreamException.disconnected("stream from worker w1 ended early", null));

    assertThat(error.status()).isEqualTo(502);
    assertThat(error.code()).isEqualTo("worker_error");
  }

  @Test
  void anErrorTheEngineReported_isAServerError() {
    ErrorResponses.ApiError error =
        errors.of(WorkerStreamException.reported("worker w1 failed: boom"));

    assertThat(error.status()).isEqualTo(500);
    assertThat(error.type()).isEqualTo("server_error");
    assertThat(error.message()).isEqualTo("worker w1 failed: boom");
  }
}
