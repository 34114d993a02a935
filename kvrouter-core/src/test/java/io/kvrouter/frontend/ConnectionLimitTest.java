package io.kvrouter.frontend;

import static io.kvrouter.frontend.ConnectionLimit.Admission.FULL;
import static io.kvrouter.frontend.ConnectionLimit.Admission.PROBES_ONLY;
import static io.kvrouter.frontend.ConnectionLimit.Admission.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class ConnectionLimitTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ConnectionLimit limit = new ConnectionLimit(2, registry);

  @Test
  void pastTheCap_theReserveServesProbes_thenConnectionsAreRefusedAndCounted() {
    assertThat(limit.admit()).isEqualTo(FULL);
    assertThat(limit.admit()).isEqualTo(FULL);
    for (int i = 0; i < ConnectionLimit.PROBE_RESERVE; i++) {
      assertThat(limit.admit()).isEqualTo(PROBES_ONLY);
    }
    assertThat(limit.admit()).isEqualTo(REFUSED);
    assertThat(limit.admit()).isEqualTo(REFUSED);
    assertThat(registry.get("kvrouter_http_connections_refused").counter().count()).isEqualTo(2);
    assertThat(registry.get("kvrouter_http_connections").gauge().value())
        .isEqualTo(2 + ConnectionLimit.PROBE_RESERVE);
  }

  @Test
  void aReleasedSlot_isTakenAgain() {
    for (int i = 0; i < 2 + ConnectionLimit.PROBE_RESERVE; i++) {
      limit.admit();
    }
    assertThat(limit.admit()).isEqualTo(REFUSED);
    limit.release();
    assertThat(limit.admit()).isEqualTo(PROBES_ONLY);
    for (int i = 0; i < ConnectionLimit.PROBE_RESERVE + 1; i++) {
      limit.release();
    }
    assertThat(limit.admit()).isEqualTo(FULL);
  }

  @Test
  void anOpenFileLimitBelowTheCapAndItsNeeds_isReported() {
    long needed = 2 + ConnectionLimit.PROBE_RESERVE + ConnectionLimit.OTHER_DESCRIPTORS;
    assertThat(limit.descriptorShortfall(needed)).isEmpty();
    assertThat(limit.descriptorShortfall(needed - 1))
        .hasValueSatisfying(
            message ->
                assertThat(message).contains("--http-max-connections (2)", "ulimit -n " + needed));
  }
}
