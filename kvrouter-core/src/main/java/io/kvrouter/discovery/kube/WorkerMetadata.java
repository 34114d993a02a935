package io.kvrouter.discovery.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.kvrouter.discovery.DiscoveryBucket;
import io.kvrouter.discovery.DiscoveryCodec;
import io.kvrouter.discovery.DiscoveryFormatException;
import io.kvrouter.discovery.DiscoveryRecord;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * One {@code DynamoWorkerMetadata} resource ({@code nvidia.com/v1alpha1}): a worker's records,
 * named after its pod and owned by it (docs/notes/dynamo-discovery.md §3.1, §3.2).
 *
 * <p>{@code spec.data} is Dynamo's {@code DiscoveryMetadata}: the maps {@code endpoints}, {@code
 * model_cards} and {@code event_channels}, each holding the same JSON values as the etcd buckets (a
 * missing or {@code null} map is empty, as Dynamo reads it; other maps, such as the newest {@code
 * event_sources}, are ignored, as the etcd watcher ignores their buckets). The maps' keys are not
 * read: like Dynamo, the records say who they are.
 *
 * @param name the resource's name: the worker's pod name (the EndpointSlice join key)
 * @param uid the resource's own uid, when the API server gave one
 * @param ownerPodUid the uid of the first owner reference of kind {@code Pod}
 * @param records the records by their etcd key, in the maps' order (endpoints, cards, channels);
 *     empty when {@code spec.data} is missing, {@code null} or unreadable
 */
record WorkerMetadata(
    String name,
    Optional<String> uid,
    Optional<String> ownerPodUid,
    Optional<Map<String, DiscoveryRecord>> records) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The maps of {@code DiscoveryMetadata} this watcher reads, and what each holds. */
  private static final Map<String, DiscoveryBucket> MAPS = maps();

  private static Map<String, DiscoveryBucket> maps() {
    Map<String, DiscoveryBucket> maps = new LinkedHashMap<>();
    maps.put("endpoints", DiscoveryBucket.INSTANCES);
    maps.put("model_cards", DiscoveryBucket.MODELS);
    maps.put("event_channels", DiscoveryBucket.EVENT_CHANNELS);
    return Collections.unmodifiableMap(maps);
  }

  /**
   * Reads {@code resource}. An unreadable {@code spec.data} gives empty {@code records} and is
   * reported to {@code unreadable} with the reason; a resource without a name gives nothing.
   */
  static Optional<WorkerMetadata> read(
      GenericKubernetesResource resource, Consumer<String> unreadable) {
    ObjectMeta meta = resource.getMetadata();
    if (meta == null || meta.getName() == null || meta.getName().isEmpty()) {
      return Optional.empty();
    }
    String name = meta.getName();
    Optional<String> ownerPodUid =
        meta.getOwnerReferences() == null
            ? Optional.empty()
            : meta.getOwnerReferences().stream()
                .filter(owner -> "Pod".equals(owner.getKind()))
                .map(OwnerReference::getUid)
                .filter(uid -> uid != null)
                .findFirst();
    Optional<Map<String, DiscoveryRecord>> records;
    try {
      records = Optional.of(records(JSON.valueToTree(resource.getAdditionalProperties()), name));
    } catch (DiscoveryFormatException e) {
      unreadable.accept(e.getMessage());
      records = Optional.empty();
    }
    return Optional.of(
        new WorkerMetadata(name, Optional.ofNullable(meta.getUid()), ownerPodUid, records));
  }

  private static Map<String, DiscoveryRecord> records(JsonNode resource, String name) {
    String where = "DynamoWorkerMetadata " + name;
    JsonNode spec = resource.get("spec");
    JsonNode data = spec == null ? null : spec.get("data");
    if (data == null || data.isNull()) {
      throw new DiscoveryFormatException(where + ": spec.data is missing or null");
    }
    if (!data.isObject()) {
      throw new DiscoveryFormatException(where + ": spec.data is not a JSON object");
    }
    Map<String, DiscoveryRecord> out = new LinkedHashMap<>();
    for (Map.Entry<String, DiscoveryBucket> map : MAPS.entrySet()) {
      JsonNode entries = data.get(map.getKey());
      if (entries == null || entries.isNull()) {
        continue;
      }
      String at = where + " spec.data." + map.getKey();
      if (!entries.isObject()) {
        throw new DiscoveryFormatException(at + " is not a JSON object");
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = entries.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> entry = it.next();
        DiscoveryRecord record =
            DiscoveryCodec.decodeValue(
                map.getValue(), entry.getValue(), at + "[\"" + entry.getKey() + "\"]");
        out.put(record.key(), record);
      }
    }
    return out;
  }

  /** Whether this is the same resource, owned by the same pod, as {@code other}. */
  boolean sameIncarnationAs(WorkerMetadata other) {
    return uid.equals(other.uid) && ownerPodUid.equals(other.ownerPodUid);
  }
}
