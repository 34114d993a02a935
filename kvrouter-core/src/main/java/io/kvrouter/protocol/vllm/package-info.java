/**
 * vLLM's KV cache events as they travel over its ZMQ publisher ({@code KVEventBatch} of {@code
 * BlockStored}, {@code BlockRemoved} and {@code AllBlocksCleared}); see {@code docs/interop.md} §5,
 * and {@link io.kvrouter.protocol.vllm.VllmEventCodec}, their msgpack payload in both of vLLM's
 * generations. Pure: no Vert.x, no Netty, no I/O.
 *
 * <p>Block hashes are the engine's own: opaque unsigned 64-bit values carried in a {@code long} (a
 * 32-byte digest is folded to its last eight bytes, read big-endian, as vLLM does for its int
 * hashes). The router never compares them with its own hashes; it recomputes those from {@code
 * token_ids}.
 */
package io.kvrouter.protocol.vllm;
