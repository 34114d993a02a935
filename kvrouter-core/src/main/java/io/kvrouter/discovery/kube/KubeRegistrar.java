package io.kvrouter.discovery.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.kvrouter.config.KubeWorkerIdentity;
import io.kvrouter.discovery.DiscoveryBucket;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A worker's registration in Kubernetes, as a Dynamo worker in pod mode registers
 * (docs/notes/dynamo-discovery.md §3.1–§3.2): one {@code DynamoWorkerMetadata} named after its pod,
 * owned by the pod (so it is collected with it), whose {@code spec.data} holds the worker's records
 * in three maps ({@code endpoints}, {@code model_cards}, {@code event_channels}), each keyed by the
 * record's key without its bucket, each value the record's discovery JSON. It is written whole by
 * server-side apply with field manager {@code dynamo-worker}, forcing conflicts, at every change.
 * The instance id is {@link PodIds#instanceId} of the pod name. Routers count the worker only while
 * its pod is ready in an EndpointSlice carrying the discovery labels.
 *
 * <p>RBAC: create, get, patch and delete on {@code dynamoworkermetadatas} in the namespace.
 */
public final class KubeRegistrar implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FIELD_MANAGER = "dynamo-worker";

  private static final Map<DiscoveryBucket, String> MAPS =
      Map.of(
          DiscoveryBucket.INSTANCES, "endpoints",
          DiscoveryBucket.MODELS, "model_cards",
          DiscoveryBucket.EVENT_CHANNELS, "event_channels");

  private final KubernetesClient client;
  private final KubeWorkerIdentity identity;
  private final String namespace;
  private final List<DiscoveryRecord> records = new ArrayList<>();

  private KubeRegistrar(KubernetesClient client, KubeWorkerIdentity identity, String namespace) {
    this.client = client;
    this.identity = identity;
    this.namespace = namespace;
  }

  /** A registrar talking to the API server the usual client configuration names. */
  public static KubeRegistrar start(KubeWorkerIdentity identity) {
    return start(Config.autoConfigure(null), identity);
  }

  /** A registrar talking to the API server {@code clientConfig} names. */
  public static KubeRegistrar start(Config clientConfig, KubeWorkerIdentity identity) {
    String namespace =
        identity
            .discovery()
            .namespace()
            .orElse(clientConfig.getNamespace() == null ? "default" : clientConfig.getNamespace());
    return new KubeRegistrar(
        new KubernetesClientBuilder().withConfig(clientConfig).build(), identity, namespace);
  }

  /** The worker's instance id, from its pod's name. */
  public long instanceId() {
    return PodIds.instanceId(identity.podName());
  }

  /**
   * Adds {@code added} to the worker's records and applies the resource.
   *
   * @throws KubernetesClientException when the API server refuses or cannot be reached
   */
  public synchronized void register(List<DiscoveryRecord> added) {
    records.addAll(added);
    GenericKubernetesResource resource = resource();
    try {
      client
          .resource(resource)
          .inNamespace(namespace)
          .fieldManager(FIELD_MANAGER)
          .forceConflicts()
          .serverSideApply();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      // an API server without server-side apply of new objects (fabric8's mock in CRUD mode):
      // create it; a missing CRD fails here too, with the server's message
      client.resource(resource).inNamespace(namespace).create();
    }
  }

  /** The resource holding every record registered so far. */
  GenericKubernetesResource resource() {
    ObjectNode data = JSON.createObjectNode();
    MAPS.values().forEach(data::putObject);
    for (DiscoveryRecord record : records) {
      DiscoveryBucket bucket = bucketOf(record);
      String key = record.key().substring(bucket.prefix().length());
      try {
        ((ObjectNode) data.get(MAPS.get(bucket)))
            .set(key, JSON.readTree(DiscoveryCodec.encode(record)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    GenericKubernetesResource resource =
        new GenericKubernetesResourceBuilder()
            .withApiVersion(
                KubeDiscoveryWatcher.WORKER_METADATA.getGroup()
                    + "/"
                    + KubeDiscoveryWatcher.WORKER_METADATA.getVersion())
            .withKind(KubeDiscoveryWatcher.WORKER_METADATA.getKind())
            .withNewMetadata()
            .withName(identity.podName())
            .withNamespace(namespace)
            .withOwnerReferences(
                new OwnerReferenceBuilder()
                    .withApiVersion("v1")
                    .withKind("Pod")
                    .withName(identity.podName())
                    .withUid(identity.podUid())
                    .withController(false)
                    .withBlockOwnerDeletion(false)
                    .build())
            .endMetadata()
            .build();
    resource.setAdditionalProperty("spec", Map.of("data", JSON.convertValue(data, Map.class)));
    return resource;
  }

  private static DiscoveryBucket bucketOf(DiscoveryRecord record) {
    for (DiscoveryBucket bucket : MAPS.keySet()) {
      if (record.key().startsWith(bucket.prefix())) {
        return bucket;
      }
    }
    throw new IllegalArgumentException("no DynamoWorkerMetadata map holds " + record.key());
  }

  /**
   * Deletes the resource, so routers drop the worker at once (a pod that goes away takes it along
   * anyway), and closes the client.
   */
  @Override
  public synchronized void close() {
    try {
      client
          .genericKubernetesResources(KubeDiscoveryWatcher.WORKER_METADATA)
          .inNamespace(namespace)
          .withName(identity.podName())
          .delete();
    } catch (KubernetesClientException e) {
      // the pod's deletion collects it anyway
    } finally {
      client.close();
    }
  }
}
