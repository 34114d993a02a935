/**
 * Dynamo's discovery on etcd, both sides, through jetcd: {@link
 * io.kvrouter.discovery.etcd.EtcdDiscoveryWatcher} (a router's view of the workers, cards and event
 * channels, listed then watched, re-listed after a lost connection or compaction) and {@link
 * io.kvrouter.discovery.etcd.EtcdRegistrar} (a worker's records under one kept-alive lease).
 */
package io.kvrouter.discovery.etcd;
