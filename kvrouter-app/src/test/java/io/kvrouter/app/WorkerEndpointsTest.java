package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ConfigLoader;
import io.kvrouter.config.RouterConfig;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.WorkerEndpoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where each --worker is reached: its TCP address, or its NATS subject, and its codec. */
class WorkerEndpointsTest {

  private static RouterConfig config(Map<String, List<String>> flags) {
    return ConfigLoader.load(flags, Map.of(), null);
  }

  @Test
  void natsWorkers_areReachedOnDynamosSubject_fromNamespaceComponentEndpointAndInstance() {
    RouterConfig config =
        config(
            Map.of(
                "request-plane", List.of("nats"),
                "namespace", List.of("Team-A"),
                "component", List.of("vllm_Worker"),
                "worker",
                    List.of(
                        "id=a,instance=7587,codec=msgpack",
                        "id=b,instance=ff,endpoint=generate2")));

    Map<String, WorkerEndpoint> endpoints = WorkerEndpoints.generate(config);

    WorkerEndpoint a = endpoints.get("a");
    assertThat(a.natsSubject()).isEqualTo("team-a_vllm_worker.generate-7587");
    assertThat(a.codec()).isEqualTo(PayloadCodec.MSGPACK);
    assertThat(a.address()).isEqualTo("team-a_vllm_worker.generate-7587");
    assertThat(a.sibling("worker_kv_query_source_1d").natsSubject())
        .isEqualTo("team-a_vllm_worker.worker_kv_query_source_1d-7587");
    assertThat(endpoints.get("b").natsSubject()).isEqualTo("team-a_vllm_worker.generate2-ff");
    assertThat(endpoints.get("b").codec()).isEqualTo(PayloadCodec.JSON);
  }

  @Test
  void tcpWorkers_haveNoSubject_andTakeTheirCodec() {
    RouterConfig config =
        config(Map.of("worker", List.of("id=a,address=h:9/7f/generate,codec=msgpack,instance=1")));

    WorkerEndpoint a = WorkerEndpoints.generate(config).get("a");

    assertThat(a)
        .isEqualTo(new WorkerEndpoint("a", "h", 9, "7f/generate", PayloadCodec.MSGPACK, null));
    assertThat(a.address()).isEqualTo("h:9/7f/generate");
  }
}
