package io.kvrouter.config;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * Where and how a {@code router.jar worker} publishes its KV cache's events.
 *
 * @param plane zmq, nats or kafka ({@code --event-plane})
 * @param format vLLM's batches or Dynamo's RouterEvents ({@code --kv-events-format})
 * @param kvEventsPort the ZMQ publisher's port, 0 for a free one; empty publishes nothing on ZMQ
 * @param kvReplayPort vLLM's replay socket's port, 0 for a free one; empty for none
 * @param kvMetricsPort Dynamo's ZMQ load publisher's port, empty for a free one
 * @param encoding the msgpack layout of vLLM's events
 * @param dropRate the fraction of events lost on purpose
 * @param natsServer the NATS server of the nats plane
 * @param namespace Dynamo namespace of the NATS subjects
 * @param component Dynamo component of the NATS subjects
 * @param endpoint Dynamo endpoint of the NATS subjects (envelope format)
 * @param natsFormat Dynamo v1.5's envelopes or v1.4's JSON on NATS
 * @param durable whether the events are kept in the subject's JetStream stream
 * @param workerId the Dynamo worker id stamped on Dynamo's events
 * @param kafka where the kafka plane is
 */
public record WorkerEventsConfig(
    EventPlaneKind plane,
    KvEventsFormat format,
    OptionalInt kvEventsPort,
    OptionalInt kvReplayPort,
    OptionalInt kvMetricsPort,
    KvEventsEncoding encoding,
    double dropRate,
    NatsServer natsServer,
    String namespace,
    String component,
    String endpoint,
    NatsEventFormat natsFormat,
    boolean durable,
    String workerId,
    KafkaConfig kafka) {

  public WorkerEventsConfig {
    Objects.requireNonNull(plane, "plane");
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(kvEventsPort, "kvEventsPort");
    Objects.requireNonNull(kvReplayPort, "kvReplayPort");
    Objects.requireNonNull(kvMetricsPort, "kvMetricsPort");
    Objects.requireNonNull(encoding, "encoding");
    Objects.requireNonNull(natsFormat, "natsFormat");
    Objects.requireNonNull(workerId, "workerId");
    Objects.requireNonNull(kafka, "kafka");
  }

  /** Whether the events are Dynamo's, on Dynamo's ZMQ event plane. */
  public boolean dynamoOnZmq() {
    return plane == EventPlaneKind.ZMQ && format == KvEventsFormat.DYNAMO;
  }

  /** The same with another Dynamo worker id. */
  public WorkerEventsConfig withWorkerId(String newWorkerId) {
    return new WorkerEventsConfig(
        plane,
        format,
        kvEventsPort,
        kvReplayPort,
        kvMetricsPort,
        encoding,
        dropRate,
        natsServer,
        namespace,
        component,
        endpoint,
        natsFormat,
        durable,
        newWorkerId,
        kafka);
  }
}
