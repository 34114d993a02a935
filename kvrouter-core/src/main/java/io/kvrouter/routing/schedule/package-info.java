/**
 * Scheduling for KV-aware routing: Dynamo's cost function over each worker rank's prompt overlap
 * and predicted load ({@link io.kvrouter.routing.schedule.KvSelector}), the busy filters, and the
 * per-worker tracking of routed requests that feeds the load ({@link
 * io.kvrouter.routing.schedule.ActiveSequences}). Pure: no Vert.x, no Netty, no I/O.
 *
 * <p>Selecting never books: the one path is admit (busy filters), select ({@link
 * io.kvrouter.routing.schedule.KvSelector#select}), then book ({@link
 * io.kvrouter.routing.schedule.ActiveSequences#add}), so {@code /router/explain} can run the first
 * two alone.
 */
package io.kvrouter.routing.schedule;
