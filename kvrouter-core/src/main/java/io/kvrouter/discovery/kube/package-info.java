/**
 * Dynamo's discovery in Kubernetes, the router's side, through the fabric8 client: {@link
 * io.kvrouter.discovery.kube.KubeDiscoveryWatcher} joins the {@code DynamoWorkerMetadata} resources
 * with the ready pods of Dynamo's EndpointSlices and reports the records to a {@link
 * io.kvrouter.discovery.DiscoveryListener}, as {@code discovery.etcd} does from etcd
 * (docs/interop.md §14).
 */
package io.kvrouter.discovery.kube;
