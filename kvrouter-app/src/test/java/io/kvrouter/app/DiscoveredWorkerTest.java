package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.RequestPlaneKind;
import io.kvrouter.discovery.InstanceRecord;
import io.kvrouter.discovery.RuntimeConfig;
import io.kvrouter.discovery.Transport;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.WorkerEndpoint;
import java.net.URI;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which discovered instances a router takes, and how it reaches them, by its request plane. */
class DiscoveredWorkerTest {
  private static final long ID = 0x694d98147d54be25L;

  private static InstanceRecord instance(Transport transport, String codec) {
    return new InstanceRecord(
        "dynamo", "backend", "generate", ID, transport, Optional.ofNullable(codec));
  }

  private static Transport http(String url) {
    return new Transport(Transport.Kind.HTTP, url);
  }

  @Test
  void anHttpWorker_isReachedAtItsUrl_byAnHttpRouter() {
    DiscoveredWorker worker =
        DiscoveredWorker.of(
            instance(http("http://10.0.0.5:8888/v1/rpc/generate"), "msgpack"),
            RuntimeConfig.DEFAULTS,
            RequestPlaneKind.HTTP);

    WorkerEndpoint endpoint = worker.endpoint();
    assertThat(endpoint.isDynamoHttp()).isTrue();
    assertThat(endpoint.isHttp()).isFalse();
    assertThat(endpoint.url()).isEqualTo(URI.create("http://10.0.0.5:8888/v1/rpc/generate"));
    assertThat(endpoint.codec()).isEqualTo(PayloadCodec.MSGPACK);
    assertThat(endpoint.workerId()).isEqualTo(Long.toUnsignedString(ID));
    assertThat(endpoint.address()).isEqualTo("http://10.0.0.5:8888/v1/rpc/generate");
    assertThat(endpoint.sibling("worker_kv_indexer_query_dp0").url())
        .isEqualTo(URI.create("http://10.0.0.5:8888/v1/rpc/worker_kv_indexer_query_dp0"));
    assertThat(worker.spec().host()).isEqualTo("10.0.0.5");
    assertThat(worker.spec().port()).isEqualTo(8888);
    // a worker back under another root is a changed worker
    assertThat(worker.spec().path()).isEqualTo("/v1/rpc/generate");
  }

  @Test
  void anHttpRouter_takesTcpWorkersToo_andATcpRouterNoHttpOnes() {
    DiscoveredWorker tcp =
        DiscoveredWorker.of(
            instance(Transport.tcp("10.0.0.6", 43117, ID, "generate"), null),
            RuntimeConfig.DEFAULTS,
            RequestPlaneKind.HTTP);
    assertThat(tcp.endpoint().isDynamoHttp()).isFalse();
    assertThat(tcp.endpoint().port()).isEqualTo(43117);

    assertThatThrownBy(
            () ->
                DiscoveredWorker.of(
                    instance(http("http://10.0.0.5:8888/v1/rpc/generate"), null),
                    RuntimeConfig.DEFAULTS,
                    RequestPlaneKind.TCP))
        .hasMessage("it serves the http request plane, and this router uses --request-plane tcp");
    assertThatThrownBy(
            () ->
                DiscoveredWorker.of(
                    instance(http("http://10.0.0.5:8888/v1/rpc/generate"), null),
                    RuntimeConfig.DEFAULTS,
                    RequestPlaneKind.NATS))
        .hasMessageContaining("--request-plane nats");
  }

  @Test
  void anHttpAddressThatIsNoHttpUrl_isRefusedSayingSo() {
    for (String bad :
        new String[] {
          "10.0.0.5:8888/v1/rpc/generate",
          "https://h:1/x",
          "http:/x",
          "http://h:8888",
          "http://h:8888/v1/rpc/",
          "http://h:8888/v1/rpc/generate?x=1"
        }) {
      assertThatThrownBy(
              () ->
                  DiscoveredWorker.of(
                      instance(http(bad), null), RuntimeConfig.DEFAULTS, RequestPlaneKind.HTTP))
          .as(bad)
          .hasMessage("its HTTP address " + bad + " is not an http://HOST:PORT/PATH URL");
    }
  }
}
