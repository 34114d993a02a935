/**
 * Dynamo's discovery records as they are stored in etcd (or a Kubernetes {@code
 * DynamoWorkerMetadata}): the keys of the {@code v1/instances}, {@code v1/mdc} and {@code
 * v1/event_channels} buckets, their JSON values ({@link DiscoveryCodec}), and the backend-neutral
 * {@link DiscoveryListener} a watcher reports to. Pure: no network, no Vert.x; the etcd client
 * lives in {@code discovery.etcd}. The layout is documented in docs/notes/dynamo-discovery.md.
 */
package io.kvrouter.discovery;
