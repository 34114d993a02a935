package io.kvrouter.events.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.NatsEventFormat;
import org.junit.jupiter.api.Test;

/** Dynamo's subject and stream naming ({@code docs/interop.md} §2.4, {@code slug.rs}). */
class NatsSubjectsTest {
  @Test
  void kvEventsSubject_isTheComponentSubjectDotKvEvents() {
    assertThat(NatsSubjects.component("dynamo", "backend"))
        .isEqualTo("namespace.dynamo.component.backend");
    assertThat(NatsSubjects.kvEvents("dynamo", "backend"))
        .isEqualTo("namespace.dynamo.component.backend.kv_events");
  }

  @Test
  void endpointTopic_isDynamo15sEndpointScope_withEverySegmentPercentEncoded() {
    assertThat(NatsSubjects.endpointTopic("dynamo", "backend", "generate", "kv-events"))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv-events");
    assertThat(NatsSubjects.endpointTopic("dynamo", "backend", "generate", "kv_metrics"))
        .isEqualTo("namespace.dynamo.component.backend.endpoint.generate.kv_metrics");
    assertThat(NatsSubjects.endpointTopic("ns:1", "Prefill~W", "gén", "a b"))
        .isEqualTo("namespace.ns%3A1.component.Prefill%7EW.endpoint.g%C3%A9n.a%20b");
  }

  @Test
  void eachFormat_namesItsOwnSubjects() {
    assertThat(NatsSubjects.kvEvents(NatsEventFormat.ENVELOPE, "prod", "decode", "generate"))
        .isEqualTo("namespace.prod.component.decode.endpoint.generate.kv-events");
    assertThat(NatsSubjects.loads(NatsEventFormat.ENVELOPE, "prod", "decode", "generate"))
        .isEqualTo("namespace.prod.component.decode.endpoint.generate.kv_metrics");
    assertThat(NatsSubjects.kvEvents(NatsEventFormat.JSON, "prod", "decode", "generate"))
        .isEqualTo("namespace.prod.component.decode.kv_events");
    assertThat(NatsSubjects.loads(NatsEventFormat.JSON, "prod", "decode", "generate"))
        .isEqualTo("namespace.prod.kv_metrics");
  }

  @Test
  void slug_lowercasesAndReplacesEverythingOutsideAzDigitsDashUnderscore() {
    assertThat(NatsSubjects.slug("namespace.Dynamo.component.vLLM-Worker.kv_events"))
        .isEqualTo("namespace_dynamo_component_vllm-worker_kv_events");
    assertThat(NatsSubjects.slug("a b/c:d@é9")).isEqualTo("a_b_c_d__9");
    assertThat(NatsSubjects.slug("x🙂y")).as("one code point, one _").isEqualTo("x_y");
  }

  @Test
  void slug_dropsLeadingUnderscores() {
    assertThat(NatsSubjects.slug(".hidden")).isEqualTo("hidden");
    assertThat(NatsSubjects.slug("__a_")).isEqualTo("a_");
  }

  @Test
  void streamName_isTheSlugWithDashesForUnderscores() {
    assertThat(NatsSubjects.streamName("namespace.dynamo.component.backend.kv_events"))
        .isEqualTo("namespace-dynamo-component-backend-kv-events");
    assertThat(NatsSubjects.kvEventsStream("my_ns", "Prefill-Worker"))
        .isEqualTo("namespace-my-ns-component-prefill-worker-kv-events");
  }

  @Test
  void namesThatAreNotOneSubjectToken_areRejectedWithTheirName() {
    assertThatThrownBy(() -> NatsSubjects.kvEvents("a.b", "backend"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("namespace")
        .hasMessageContaining("a.b");
    assertThatThrownBy(() -> NatsSubjects.kvEvents("dynamo", ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("component");
    assertThatThrownBy(() -> NatsSubjects.kvEvents("dynamo", "*"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
