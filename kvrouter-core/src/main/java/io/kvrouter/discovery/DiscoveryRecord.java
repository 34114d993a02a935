package io.kvrouter.discovery;

/**
 * One record of Dynamo's discovery ({@code DiscoveryInstance}, tagged by {@code "type"}): an
 * endpoint instance, a model card or an event channel. Its {@link #key()} is the full etcd key.
 */
public sealed interface DiscoveryRecord
    permits InstanceRecord, ModelCardRecord, EventChannelRecord {

  /** The full etcd key, bucket included. */
  String key();

  /** The record's id: the worker's instance id, or an event channel's publisher id (u64 bits). */
  long instanceId();
}
