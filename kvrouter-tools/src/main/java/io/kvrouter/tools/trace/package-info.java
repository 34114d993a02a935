/**
 * Request traces in the Mooncake format (one JSON object per line: {@code timestamp} in ms, {@code
 * input_length}, {@code output_length}, {@code hash_ids} of 512-token prefix blocks), read into
 * {@link io.kvrouter.tools.trace.TraceRequest}s, and the synthetic tokens and block hashes that
 * stand for their prompts. Shared by the simulator and the live benchmark client. Pure: no Vert.x.
 */
package io.kvrouter.tools.trace;
