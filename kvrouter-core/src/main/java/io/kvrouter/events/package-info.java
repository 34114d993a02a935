/**
 * The event plane, router side: subscribers that receive the workers' KV cache events, decode them,
 * and deliver them to the index through its {@link io.kvrouter.routing.index.KvEventSink} port.
 * Adapters for each transport live in subpackages; only {@code app} names them.
 */
package io.kvrouter.events;
