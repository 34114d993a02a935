package io.kvrouter.transport.nats;

import io.kvrouter.common.Slug;

/**
 * The NATS subject a Dynamo worker's endpoint serves requests on with {@code
 * DYN_REQUEST_PLANE=nats}:
 *
 * <pre>
 * {slug(namespace + "_" + component)}.{endpoint}-{instance_id:x}
 * e.g. namespace dynamo, component backend, endpoint generate, instance 0x7587 (30087):
 *      dynamo_backend.generate-7587
 * </pre>
 *
 * <p>Dynamo's worker adds its endpoint {@code {endpoint}-{instance_id:x}} to the NATS service group
 * named {@code Slug::slugify("{namespace}_{component}")} ({@code
 * lib/runtime/src/pipeline/network/ingress/nats_server.rs} @01207e79), and async-nats joins a
 * group's name and an endpoint's name with a dot; the same subject is what the worker registers in
 * discovery ({@code Endpoint::subject_to} in {@code lib/runtime/src/component.rs} @01207e79: {@code
 * "{service_name}.{name_with_id}"}). The instance id is the worker's Dynamo instance id (its
 * discovery lease id, also the {@code worker_id} of its KV events), in lowercase hex without
 * leading zeros.
 */
public final class NatsRequestSubjects {
  private NatsRequestSubjects() {}

  /** The NATS service (group) name of a component: {@code slug("{namespace}_{component}")}. */
  public static String service(String namespace, String component) {
    return Slug.of(namespace + "_" + component);
  }

  /** The subject of {@code endpoint} of the worker instance {@code instanceId} (a u64's bits). */
  public static String of(String namespace, String component, String endpoint, long instanceId) {
    return service(namespace, component) + "." + endpoint + "-" + Long.toHexString(instanceId);
  }
}
