/**
 * {@code router.jar bench}: a Mooncake trace replayed against a live router by a real HTTP client,
 * on the trace's schedule (open loop), with latency measured where a user would see it.
 *
 * <p>{@link io.kvrouter.tools.bench.TraceBench} runs it from {@link
 * io.kvrouter.tools.bench.BenchSettings} and gives back a {@link
 * io.kvrouter.tools.bench.BenchResult}: a {@link io.kvrouter.tools.report.RunReport} in the
 * simulator's shape plus each completed request and the failures. Each request is a streamed {@code
 * /v1/completions} call whose prompt is the {@link io.kvrouter.tools.trace.SyntheticTokens} of its
 * hash ids; the event stream is read line by line ({@code SseLines}, {@code StreamChunk}) into
 * per-request timings ({@code RequestClock}) gathered by a {@code BenchCollector}. The router's
 * {@code /metrics} (predicted KV hit rate, mode) and {@code /router/workers} (requests in flight
 * per worker) are polled alongside for the timeline ({@code RouterWatcher}, {@code
 * TimelineRecorder}).
 */
package io.kvrouter.tools.bench;
