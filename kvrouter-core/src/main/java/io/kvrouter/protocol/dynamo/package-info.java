/**
 * NVIDIA Dynamo's KV event wire format: the JSON {@code RouterEvent} its workers publish on {@code
 * {subject}.kv_events} and its routers snapshot ({@code docs/interop.md} §2, E2 field set), and the
 * {@code KvCacheEvents} batch. {@link io.kvrouter.protocol.dynamo.DynamoEventCodec} turns it into
 * the router's own {@link io.kvrouter.protocol.RouterEvent} plus the event id and back. Pure: no
 * Vert.x, no Netty, no I/O.
 *
 * <p>Every u64 (worker id, event id, block hashes) is carried bit for bit in a {@code long}; values
 * of 2<sup>63</sup> and above appear negative in Java and are written back as unsigned decimals.
 */
package io.kvrouter.protocol.dynamo;
