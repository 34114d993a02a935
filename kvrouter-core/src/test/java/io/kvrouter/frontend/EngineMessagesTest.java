package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which engine messages a client may read: what an engine says about the request stays, anything
 * that shows the engine's inside (its exception classes, source files, tracebacks, hosts, pods) is
 * replaced.
 */
class EngineMessagesTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "prompt too long",
        "This model's maximum context length is 2048 tokens. However, you requested 2100 tokens"
            + " (100 in the messages, 2000 in the completion). Please reduce the length of the"
            + " messages or completion.",
        "max_tokens must be at least 1, got 0.",
        "temperature must be non-negative, got -1.0.",
        "The decoder prompt (length 5000) is longer than the maximum model length of 4096.",
        "Error in the request: stop strings must be at most 8",
        "the request was aborted at 12:30:45",
        "The model `Qwen/Qwen2.5-0.5B-Instruct` does not exist.",
        "Error code 400: bad request",
      })
  void whatAnEngineSaysAboutTheRequest_isShown(String message) {
    assertThat(EngineMessages.clientSafe(message)).as(message).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        // exception classes, Python's and Java's
        "ValueError: the engine was not ready",
        "KeyError: 'req-17'",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB",
        "EngineDeadError",
        "java.lang.IllegalStateException: closed",
        "UserWarning: the sampler fell back",
        // tracebacks and source files, absolute and relative
        "Traceback (most recent call last):",
        "File \"core.py\", in step",
        "failed in step (core.py line 212)",
        "failed in vllm/v1/engine/core.py",
        "failed in csrc/attention/paged_attention_v2.cu",
        "ValueError at /opt/vllm/engine.py",
        "cannot open C:\\models\\llama",
        "failed in vllm.v1.engine.core",
        // addresses, hosts and pods
        "cannot reach 10.0.0.5",
        "cannot reach vllm-decode-0:8000",
        "cannot reach localhost:5557",
        "cannot reach engine.default.svc.cluster.local",
        "cannot reach tcp://engine",
        "cannot reach [fd00::5]:9000",
        "cannot reach fe80::1",
        "cannot reach 2001:db8:0:0:0:0:0:5",
        "pod vllm-decode-7d9f8b6c4d-x2kq9 is gone",
      })
  void whatShowsTheEnginesInside_isReplaced(String message) {
    assertThat(EngineMessages.clientSafe(message)).as(message).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "two\nlines", "carriage\rreturn"})
  void blankOrSeveralLines_isReplaced(String message) {
    assertThat(EngineMessages.clientSafe(message)).as(message).isFalse();
  }

  @org.junit.jupiter.api.Test
  void tooLongOrAbsent_isReplaced() {
    assertThat(EngineMessages.clientSafe("x".repeat(EngineMessages.MAX_LENGTH))).isTrue();
    assertThat(EngineMessages.clientSafe("x".repeat(EngineMessages.MAX_LENGTH + 1))).isFalse();
    assertThat(EngineMessages.clientSafe(null)).isFalse();
  }
}
