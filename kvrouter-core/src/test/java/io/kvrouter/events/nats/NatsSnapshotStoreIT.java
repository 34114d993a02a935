package io.kvrouter.events.nats;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.snapshot.IndexSnapshot;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.SyntheticSnapshots;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Snapshots in a real nats-server's JetStream (started here, on loopback): written, read back by
 * another connection, replaced, deleted; one writer at a time, and a new one once the old one's
 * lock expires.
 */
class NatsSnapshotStoreIT {
  @Test
  void aSnapshotIsWrittenReadByAnotherReplacedAndDeleted() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.startWithJetStream();
        NatsSnapshotStore writer =
            NatsSnapshotStore.connect(nats.server(), Duration.ofSeconds(30));
        NatsSnapshotStore reader =
            NatsSnapshotStore.connect(nats.server(), Duration.ofSeconds(30))) {
      assertThat(reader.load("dynamo.backend.generate")).isEmpty();

      IndexSnapshot first = SyntheticSnapshots.of(20_000, 99);
      assertThat(writer.save("dynamo.backend.generate", first)).isGreaterThan(128 * 1024);
      assertThat(reader.load("dynamo.backend.generate")).contains(first);
      assertThat(reader.load("other.endpoint.name")).isEmpty();

      IndexSnapshot second = SyntheticSnapshots.of(10, 120);
      writer.save("dynamo.backend.generate", second);
      assertThat(reader.load("dynamo.backend.generate")).contains(second);

      reader.delete("dynamo.backend.generate");
      assertThat(writer.load("dynamo.backend.generate")).isEmpty();
      reader.delete("dynamo.backend.generate"); // nothing there: no error
    }
  }

  @Test
  void oneWriterAtATime_andAnotherOnceItsLockExpires() throws Exception {
    try (NatsServerProcess nats = NatsServerProcess.startWithJetStream();
        NatsSnapshotStore a = NatsSnapshotStore.connect(nats.server(), Duration.ofSeconds(2));
        NatsSnapshotStore b = NatsSnapshotStore.connect(nats.server(), Duration.ofSeconds(2))) {
      assertThat(a.lock("ep", "router-a")).isTrue();
      assertThat(b.lock("ep", "router-b")).as("a holds it").isFalse();
      assertThat(a.lock("ep", "router-a")).as("a refreshes it").isTrue();
      assertThat(b.lock("other", "router-b")).as("locks are per snapshot").isTrue();

      // a stops refreshing (it died): its lock lapses and b takes over
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(200))
          .until(() -> b.lock("ep", "router-b"));
      assertThat(a.lock("ep", "router-a")).as("b holds it now").isFalse();
    }
  }
}
