/**
 * The simulated worker's KV cache: one prefix-caching block pool ({@link
 * io.kvrouter.worker.kv.BlockPool}) that caches, reuses and evicts blocks the way vLLM and Dynamo's
 * mocker do, for the live worker and for the engine's scheduler alike. How blocks are named is its
 * requests' ({@link io.kvrouter.worker.kv.VllmSequence}: vLLM's {@code sha256_cbor}, {@link
 * io.kvrouter.worker.kv.VllmBlockHasher}; {@link io.kvrouter.worker.kv.DynamoSequence}: Dynamo's
 * XXH3 hashes), and its changes go out in vLLM's format ({@link io.kvrouter.worker.kv.VllmEvents},
 * to publishers and {@link io.kvrouter.worker.kv.WorkerKvEventLog}, Dynamo's worker-local indexer)
 * or Dynamo's ({@link io.kvrouter.worker.kv.DynamoEvents}). It is the ground truth the router's
 * event plane is tested against: replaying the events must rebuild exactly what the cache holds.
 * Pure: no Vert.x, no I/O.
 */
package io.kvrouter.worker.kv;
