/**
 * The simulated engine's scheduler and timing model, in the form of Dynamo's mocker: iteration
 * steps that batch decodes and chunked prefills under {@code max_num_seqs} and {@code
 * max_num_batched_tokens}, admission into the prefix-caching KV cache ({@link
 * io.kvrouter.worker.kv.BlockPool}) with a watermark, preemption when the cache is full, and each
 * step's duration from the mocker's polynomials. {@link io.kvrouter.worker.engine.EngineCore} is
 * pure and clock-free: a caller starts a step, waits its duration (in virtual time in the
 * simulator) and completes it.
 */
package io.kvrouter.worker.engine;
