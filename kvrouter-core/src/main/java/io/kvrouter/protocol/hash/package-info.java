/**
 * The one canonical KV block hasher: XXH3-64 with seed 1337 over little-endian u32 token ids,
 * complete blocks only, chained sequence hashes and the LoRA / cache-namespace seed variant,
 * bit-compatible with NVIDIA Dynamo's router ({@code lib/kv-router/src/protocols.rs}). See {@link
 * io.kvrouter.protocol.hash.BlockHasher}.
 *
 * <p>Pure Java: imports only {@code io.kvrouter.common} and {@code net.openhft.hashing}; no Vert.x
 * or Netty.
 */
package io.kvrouter.protocol.hash;
