package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.NoWorkerAvailableException;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import org.junit.jupiter.api.Test;

class ErrorResponsesTest {
  private final ErrorResponses errors = new ErrorResponses(503);
  private final RequestIds.RequestId id = new RequestIds.RequestId("internal-1", "client-7");

  @Test
  void aStalledWorkerStream_isAGatewayTimeoutNamingTheRequestNotTheWorker() {
    ErrorResponses.ApiError error =
        errors.of(
            WorkerStreamException.stalled("worker w1 stopped sending: no output for 120 s"), id);

    assertThat(error.status()).isEqualTo(504);
    assertThat(error.body().getJsonObject("error").getMap())
        .containsEntry("type", "server_error")
        .containsEntry("code", "worker_timeout")
        .containsEntry(
            "message", "The worker serving this request stopped sending (request id client-7)")
        .containsEntry("param", null);
  }

  @Test
  void aBrokenWorkerStream_staysABadGateway() {
    ErrorResponses.ApiError error =
        errors.of(
            WorkerStreamException.disconnected("stream from worker w1 ended early", null), id);

    assertThat(error.status()).isEqualTo(502);
    assertThat(error.code()).isEqualTo("worker_error");
    assertThat(error.message()).doesNotContain("w1");
  }

  @Test
  void anErrorTheEngineReported_isAServerErrorWithTheEnginesMessage() {
    ErrorResponses.ApiError error =
        errors.of(WorkerStreamException.fromEngine("w1", "prompt too long"), id);

    assertThat(error.status()).isEqualTo(500);
    assertThat(error.type()).isEqualTo("server_error");
    assertThat(error.message()).isEqualTo("prompt too long");
  }

  @Test
  void anEngineMessageWithATracebackOrAnAddress_isReplaced() {
    for (String said :
        new String[] {
          "Traceback (most recent call last):\n  File \"/opt/vllm/engine.py\", line 3",
          "ValueError at /opt/vllm/engine.py",
          "cannot reach 10.0.0.5:8000",
          "RuntimeException: boom",
          "x".repeat(EngineMessages.MAX_LENGTH + 1)
        }) {
      ErrorResponses.ApiError error = errors.of(WorkerStreamException.fromEngine("w1", said), id);

      assertThat(error.status()).isEqualTo(500);
      assertThat(error.message())
          .as(said)
          .isEqualTo("The engine failed to generate a response (request id client-7)");
    }
  }

  @Test
  void aWorkerThatCannotBeReached_isAGeneric503WithoutItsAddress() {
    ErrorResponses.ApiError unreachable =
        errors.of(
            WorkerUnavailableException.unreachable(
                "w1", "cannot reach 127.0.0.1:40123: Connection refused", null),
            id);
    ErrorResponses.ApiError none =
        errors.of(
            new NoWorkerAvailableException(
                "No worker could take the request; last failure: worker w1: cannot reach"
                    + " 127.0.0.1:40123"),
            id);

    for (ErrorResponses.ApiError error : new ErrorResponses.ApiError[] {unreachable, none}) {
      assertThat(error.status()).isEqualTo(503);
      assertThat(error.message())
          .isEqualTo("No worker can serve this request now; try again later (request id client-7)");
    }
  }

  @Test
  void anUnexpectedFailure_isAGeneric500_andAValidationMessageStays() {
    ErrorResponses.ApiError bug =
        errors.of(new IllegalStateException("index 3 out of bounds in /srv/kvrouter"), id);
    ErrorResponses.ApiError invalid =
        errors.of(new InvalidRequestException("'max_tokens' must be positive", "max_tokens"), id);

    assertThat(bug.status()).isEqualTo(500);
    assertThat(bug.message()).isEqualTo("Internal server error (request id client-7)");
    assertThat(invalid.status()).isEqualTo(400);
    assertThat(invalid.message()).isEqualTo("'max_tokens' must be positive");
    assertThat(invalid.param()).isEqualTo("max_tokens");
  }
}
