package io.kvrouter.discovery;

import java.util.List;
import java.util.Objects;

/**
 * Where an event channel's messages go: Dynamo's {@code EventTransport}, serde adjacently tagged
 * ({@code {"kind": "Nats"|"Zmq"|"ZmqBroker", "config": {…}}}).
 */
public sealed interface EventTransport {

  /** NATS subjects {@code {subjectPrefix}.{topic}}. */
  record Nats(String subjectPrefix) implements EventTransport {
    public Nats {
      Objects.requireNonNull(subjectPrefix, "subjectPrefix");
    }
  }

  /** A ZMQ PUB socket, {@code tcp://host:port}. */
  record Zmq(String endpoint) implements EventTransport {
    public Zmq {
      Objects.requireNonNull(endpoint, "endpoint");
    }
  }

  /** A ZMQ broker's XSUB and XPUB sockets. */
  record ZmqBroker(List<String> xsubEndpoints, List<String> xpubEndpoints)
      implements EventTransport {
    public ZmqBroker {
      xsubEndpoints = List.copyOf(xsubEndpoints);
      xpubEndpoints = List.copyOf(xpubEndpoints);
    }
  }
}
