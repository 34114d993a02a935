/**
 * The simulated worker's KV cache: vLLM's prefix-caching block hashes ({@link
 * io.kvrouter.worker.kv.VllmBlockHasher}) and a block manager ({@link
 * io.kvrouter.worker.kv.KvCacheManager}) that caches, reuses and evicts blocks the way vLLM and
 * Dynamo's mocker do, and reports every change as vLLM KV events. It is the ground truth the
 * router's event plane is tested against: replaying the events must rebuild exactly what the cache
 * holds. Pure: no Vert.x, no I/O.
 */
package io.kvrouter.worker.kv;
