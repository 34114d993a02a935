package io.kvrouter.discovery;

import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Valid discovery records for tests. */
public final class DiscoveryRecords {
  private DiscoveryRecords() {}

  public static InstanceRecord instance(long id, int port) {
    return new InstanceRecord(
        "dynamo",
        "backend",
        "generate",
        id,
        Transport.tcp("127.0.0.1", port, id, "generate"),
        Optional.empty());
  }

  public static ModelCardRecord card(long id, String model) {
    return new ModelCardRecord(
        "dynamo",
        "backend",
        "generate",
        id,
        ModelCard.forWorker(
            model,
            Optional.empty(),
            4096,
            16,
            new RuntimeConfig(
                OptionalInt.of(4096),
                OptionalLong.of(1024),
                OptionalLong.of(256),
                OptionalLong.of(8192),
                0,
                1,
                true),
            Map.of()),
        Optional.empty());
  }

  public static EventChannelRecord channel(long publisherId, int port) {
    return new EventChannelRecord(
        EventChannelRecord.Layout.SCOPED,
        EventScope.endpoint("dynamo", "backend", "generate"),
        "kv-events",
        publisherId,
        new EventTransport.Zmq("tcp://127.0.0.1:" + port));
  }
}
