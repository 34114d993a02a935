package io.kvrouter.discovery.etcd;

import static io.kvrouter.discovery.DiscoveryRecords.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.testing.EtcdProcess;
import io.kvrouter.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The registrar and the watcher against an etcd that speaks mutual TLS (ETCD_AUTH_CA,
 * ..._CLIENT_*).
 */
class EtcdTlsTest {
  @TempDir Path dir;
  private TestCertificates certificates;
  private EtcdProcess etcd;

  @BeforeEach
  void startEtcdWithTls() throws Exception {
    certificates = TestCertificates.generate(dir);
    etcd = EtcdProcess.startWithTls(certificates);
  }

  @AfterEach
  void stop() {
    etcd.close();
  }

  @Test
  void withTheCaAndAClientCertificate_registersAndIsWatched() throws Exception {
    // the CA as PEM text (as Dynamo passes ETCD_AUTH_CA), the client pair as file paths
    EtcdConfig config =
        new EtcdConfig(
            List.of(etcd.uri()),
            Optional.empty(),
            Optional.empty(),
            Optional.of(Files.readString(certificates.ca())),
            Optional.of(certificates.clientCert().toString()),
            Optional.of(certificates.clientKey().toString()));
    assertThat(config.tls()).isTrue();
    RecordingListener listener = new RecordingListener();
    try (EtcdDiscoveryWatcher watcher = EtcdDiscoveryWatcher.start(config, listener);
        EtcdRegistrar registrar = EtcdRegistrar.start(config)) {
      registrar.register(instance(registrar.instanceId(), 1001));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> listener.view().containsKey(instance(registrar.instanceId(), 1001).key()));
    }
  }

  @Test
  void withoutAClientCertificate_theLeaseIsRefused() {
    EtcdConfig config =
        new EtcdConfig(
            List.of(etcd.uri()),
            Optional.empty(),
            Optional.empty(),
            Optional.of(certificates.ca().toString()),
            Optional.empty(),
            Optional.empty());
    assertThatThrownBy(() -> EtcdRegistrar.start(config).close())
        .isInstanceOf(EtcdUnavailableException.class)
        .hasMessageContaining("granting a lease");
  }
}
