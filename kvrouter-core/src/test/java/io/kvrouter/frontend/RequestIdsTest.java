package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestIdsTest {
  @Test
  void usualIds_areKept() {
    for (String id :
        new String[] {
          "0b3f6c1e-7a8d-4c59-9a51-2f1d6e9c1a77",
          "01HZY3J5W7Q8R9S0T1V2W3X4Y5",
          "req_42.retry:2",
          "Root=1-5759e988+bd862e3f",
          "x".repeat(RequestIds.MAX_LENGTH)
        }) {
      assertThat(RequestIds.valid(id)).as(id).isTrue();
    }
  }

  @Test
  void longOrUnsafeIds_areNot() {
    for (String id :
        new String[] {
          "",
          "x".repeat(RequestIds.MAX_LENGTH + 1),
          "a b",
          "a\r\nX-Injected: 1",
          "../../etc/passwd",
          "<script>",
          "id\"quoted",
          "é"
        }) {
      assertThat(RequestIds.valid(id)).as(id).isFalse();
    }
  }
}
