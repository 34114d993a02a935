package io.kvrouter.discovery;

import io.kvrouter.common.Hosts;
import java.util.Objects;
import java.util.Optional;

/**
 * How an endpoint instance is reached: Dynamo's {@code TransportType}, serde {@code snake_case},
 * externally tagged ({@code {"tcp":"…"}}, {@code {"nats_tcp":"…"}}, {@code {"http":"…"}}).
 *
 * @param kind the request plane
 * @param address TCP: {@code host:port/{instance_id:x}/{endpoint}} (older workers {@code
 *     host:port/{endpoint}}); NATS: the subject; HTTP: the URL
 */
public record Transport(Kind kind, String address) {

  /** The variants, by their JSON tag. */
  public enum Kind {
    TCP("tcp"),
    NATS("nats_tcp"),
    HTTP("http");

    private final String tag;

    Kind(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }

    static Optional<Kind> ofTag(String tag) {
      for (Kind kind : values()) {
        if (kind.tag.equals(tag)) {
          return Optional.of(kind);
        }
      }
      return Optional.empty();
    }
  }

  public Transport {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(address, "address");
  }

  /**
   * The TCP address a Dynamo worker writes for one endpoint of its shared TCP server: {@code
   * host:port/{instance_id:x}/{endpoint}}.
   */
  public static Transport tcp(String host, int port, long instanceId, String endpoint) {
    return new Transport(
        Kind.TCP,
        Hosts.bracketed(host) + ":" + port + "/" + DynamoIds.hex(instanceId) + "/" + endpoint);
  }

  /**
   * The {@code host:port} part of a TCP address (everything before the first {@code /} after the
   * port); empty for another kind.
   */
  public Optional<String> tcpHostPort() {
    if (kind != Kind.TCP) {
      return Optional.empty();
    }
    int bracket = address.indexOf(']');
    int slash = address.indexOf('/', Math.max(bracket, 0));
    return Optional.of(slash < 0 ? address : address.substring(0, slash));
  }
}
