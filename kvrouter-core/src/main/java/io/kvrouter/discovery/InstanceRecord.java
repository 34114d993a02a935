package io.kvrouter.discovery;

import java.util.Objects;
import java.util.Optional;

/**
 * A routable endpoint of a worker process: {@code DiscoveryInstance::Endpoint}, a newtype over
 * {@code component::Instance} (component.rs @01207e79; {@code request_plane_codec} from
 * discovery/mod.rs, commit n/a), stored at {@code v1/instances/{ns}/{component}/{endpoint}/{id:x}}.
 *
 * @param instanceId the worker's instance id: with etcd, its process's lease id (u64 bits)
 * @param requestPlaneCodec {@code json} or {@code msgpack}; empty for a worker that does not say
 *     (Dynamo reads that as a legacy JSON-only worker)
 */
public record InstanceRecord(
    String namespace,
    String component,
    String endpoint,
    long instanceId,
    Transport transport,
    Optional<String> requestPlaneCodec)
    implements DiscoveryRecord {

  public InstanceRecord {
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(component, "component");
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(transport, "transport");
    Objects.requireNonNull(requestPlaneCodec, "requestPlaneCodec");
  }

  @Override
  public String key() {
    return DiscoveryBucket.INSTANCES.prefix()
        + namespace
        + "/"
        + component
        + "/"
        + endpoint
        + "/"
        + DynamoIds.hex(instanceId);
  }
}
