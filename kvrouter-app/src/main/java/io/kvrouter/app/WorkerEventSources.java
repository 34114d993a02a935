package io.kvrouter.app;

import io.kvrouter.config.WorkerSpec;
import io.kvrouter.protocol.WorkerEndpoint;

/**
 * One kind of KV event source the router follows (vLLM's ZMQ publishers, Dynamo's ZMQ or NATS event
 * plane), worker by worker: a worker's sources of this kind are followed from its joining the
 * {@link WorkerFleet} to its leaving. The fleet calls one method at a time; calls may block (ZeroMQ
 * sockets are connected, threads joined), so they never run on an event loop.
 */
interface WorkerEventSources extends AutoCloseable {

  /**
   * Starts following {@code worker}'s events, if it publishes events of this kind; {@code endpoint}
   * is its generate endpoint, next to which recovery questions are asked. If it cannot start,
   * whatever it started for the worker is closed before the error is thrown.
   */
  void follow(WorkerSpec worker, WorkerEndpoint endpoint);

  /** Stops following {@code workerId}'s events; nothing happens when none were followed here. */
  void unfollow(String workerId);

  /** Stops following every worker; blocks until the threads end. */
  @Override
  void close();
}
