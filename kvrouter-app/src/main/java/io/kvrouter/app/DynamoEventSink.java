package io.kvrouter.app;

import io.kvrouter.discovery.EventTransport;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a simulated worker's Dynamo KV events and load reports go: NATS subjects ({@link
 * NatsDynamoSink}) or Dynamo's ZMQ event plane ({@link ZmqDynamoSink}). Calls may come from any
 * thread; a message that cannot go out now is dropped, and the router recovers it by query.
 */
interface DynamoEventSink extends AutoCloseable {

  void publishEvent(DynamoRouterEvent event);

  /** Whether the report went out (the worker tries again at its next tick if not). */
  boolean publishLoad(WorkerLoadReport load);

  /**
   * The publisher whose envelopes carry rank {@code dpRank}'s events; Dynamo v1.5 serves the rank's
   * recovery queries at an endpoint named after it. Empty when the events go without envelopes.
   */
  OptionalLong publisherId(int dpRank);

  /**
   * Where routers find the KV events, as the transport of the worker's event channel records in
   * discovery ({@code v1/event_channels}); empty when the events go where Dynamo registers no
   * channel (v1.4's JSON subjects).
   */
  Optional<EventTransport> eventChannel();

  /**
   * The load publisher's id and where routers find its reports ({@code kv_metrics}), as the
   * worker's event channel record for that topic; empty when the reports go where Dynamo registers
   * no channel (v1.4's JSON subjects).
   */
  Optional<LoadChannel> loadChannel();

  /** The load publisher of a worker: its id and transport. */
  record LoadChannel(long publisherId, EventTransport transport) {}

  /** Where the events go, for the worker's start-up line. */
  String describe();

  @Override
  void close();
}
