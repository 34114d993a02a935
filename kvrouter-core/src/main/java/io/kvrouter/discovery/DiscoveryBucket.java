package io.kvrouter.discovery;

import java.util.Optional;

/**
 * The etcd key prefixes ("buckets") Dynamo's {@code KVStoreDiscovery} keeps its records under
 * ({@code lib/runtime/src/discovery/kv_store.rs} @020f5c17): a stored key is {@code
 * {bucket}/{key}}, with no other root prefix.
 */
public enum DiscoveryBucket {
  /** {@code v1/instances/{ns}/{component}/{endpoint}/{instance_id:x}}: routable endpoints. */
  INSTANCES("v1/instances"),
  /** {@code v1/mdc/{ns}/{component}/{endpoint}/{instance_id:x}[/{suffix}]}: model cards. */
  MODELS("v1/mdc"),
  /** {@code v1/event_channels/…}: where a publisher's events go. */
  EVENT_CHANNELS("v1/event_channels");

  private final String name;

  DiscoveryBucket(String name) {
    this.name = name;
  }

  /** The bucket's name, e.g. {@code v1/instances}. */
  public String bucketName() {
    return name;
  }

  /** The prefix of every key in the bucket: its name and a slash. */
  public String prefix() {
    return name + "/";
  }

  /** The bucket {@code key} belongs to, if any of these. */
  public static Optional<DiscoveryBucket> of(String key) {
    for (DiscoveryBucket bucket : values()) {
      if (key.startsWith(bucket.prefix())) {
        return Optional.of(bucket);
      }
    }
    return Optional.empty();
  }
}
