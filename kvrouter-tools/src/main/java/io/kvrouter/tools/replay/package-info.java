/**
 * The policy simulator ({@code router.jar simulate}): replays a trace in virtual time through a
 * routing policy ({@link io.kvrouter.routing.RoutingPolicy}: the live router's own policies, the KV
 * ones with their index, scheduler and active-sequence books) and one {@link
 * io.kvrouter.worker.engine.EngineCore} per worker, with KV events reaching the policy after a
 * configurable delay, and measures what a client would see. Deterministic: the same trace, settings
 * and seed give the same numbers.
 */
package io.kvrouter.tools.replay;
