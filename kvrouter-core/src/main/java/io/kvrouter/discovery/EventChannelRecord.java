package io.kvrouter.discovery;

import java.util.Objects;

/**
 * A publisher's event channel: {@code DiscoveryInstance::EventChannel}. Two layouts are read and
 * written (docs/notes/dynamo-discovery.md §1.2, §1.3):
 *
 * <ul>
 *   <li>{@link Layout#SCOPED} (latest, kv_store.rs @020f5c17): key {@code v1/event_channels/{scope
 *       path}/topic/{topic}/{publisher_id:x}}, value {@code {"type", "scope", "topic",
 *       "instance_id", "transport"}}; the id is a random per-publisher id below 2^53;
 *   <li>{@link Layout#COMPONENT} (mid versions, kv_store.rs id 55283377990): key {@code
 *       v1/event_channels/{ns}/{component}/{topic}/{instance_id:x}} (component {@code ""} for a
 *       namespace), value {@code {"type", "namespace", "component", "topic", "instance_id",
 *       "transport"}}; the id is the process's lease id. Its scope is a component or namespace.
 * </ul>
 *
 * @param instanceId the publisher id (the envelope's {@code publisher_id})
 */
public record EventChannelRecord(
    Layout layout, EventScope scope, String topic, long instanceId, EventTransport transport)
    implements DiscoveryRecord {

  public enum Layout {
    SCOPED,
    COMPONENT
  }

  public EventChannelRecord {
    Objects.requireNonNull(layout, "layout");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(transport, "transport");
    if (layout == Layout.COMPONENT && scope.kind() == EventScope.Kind.ENDPOINT) {
      throw new IllegalArgumentException("the component layout has no endpoint scope");
    }
  }

  /** The publisher id, as the envelopes on the channel carry it. */
  public long publisherId() {
    return instanceId;
  }

  @Override
  public String key() {
    String id = DynamoIds.hex(instanceId);
    if (layout == Layout.SCOPED) {
      return DiscoveryBucket.EVENT_CHANNELS.prefix()
          + scope.pathPrefix()
          + "/topic/"
          + EventScope.encode(topic)
          + "/"
          + id;
    }
    return DiscoveryBucket.EVENT_CHANNELS.prefix()
        + scope.namespace()
        + "/"
        + (scope.component() == null ? "" : scope.component())
        + "/"
        + topic
        + "/"
        + id;
  }
}
