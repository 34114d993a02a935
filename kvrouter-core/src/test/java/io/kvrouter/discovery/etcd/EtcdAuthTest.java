package io.kvrouter.discovery.etcd;

import static io.kvrouter.discovery.DiscoveryRecords.instance;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.kvrouter.config.EtcdConfig;
import io.kvrouter.discovery.RecordingListener;
import io.kvrouter.testing.EtcdProcess;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registrar and the watcher with etcd's user authentication on (ETCD_AUTH_USERNAME/PASSWORD).
 */
class EtcdAuthTest {
  private EtcdProcess etcd;

  @BeforeEach
  void startEtcdWithAuth() throws Exception {
    etcd = EtcdProcess.start();
    try (Client admin = EtcdClients.connect(EtcdConfig.of(List.of(etcd.uri())))) {
      admin.getAuthClient().userAdd(bytes("root"), bytes("s3cret")).get(10, TimeUnit.SECONDS);
      admin.getAuthClient().roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
      admin.getAuthClient().userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
      admin.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
    }
  }

  @AfterEach
  void stop() {
    etcd.close();
  }

  private EtcdConfig config(String user, String password) {
    return new EtcdConfig(
        List.of(etcd.uri()),
        Optional.ofNullable(user),
        Optional.ofNullable(password),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  @Test
  void withTheUsersPassword_registersAndIsWatched() {
    RecordingListener listener = new RecordingListener();
    try (EtcdDiscoveryWatcher watcher =
            EtcdDiscoveryWatcher.start(config("root", "s3cret"), listener);
        EtcdRegistrar registrar = EtcdRegistrar.start(config("root", "s3cret"))) {
      registrar.register(instance(registrar.instanceId(), 1001));
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> listener.view().containsKey(instance(registrar.instanceId(), 1001).key()));
    }
  }

  @Test
  void withoutCredentials_orAWrongPassword_nothingIsRegistered() {
    for (EtcdConfig config : List.of(config(null, null), config("root", "wrong"))) {
      assertThatThrownBy(
              () -> {
                try (EtcdRegistrar registrar = EtcdRegistrar.start(config)) {
                  registrar.register(instance(registrar.instanceId(), 1001));
                }
              })
          .as(config.username().orElse("no user"))
          .isInstanceOf(EtcdUnavailableException.class)
          .hasMessageMatching("(?s).*(user name is empty|UNAUTHENTICATED).*");
    }
    assertThat(etcd.isRunning()).isTrue();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
