/**
 * The policy simulator ({@code router.jar simulate}): replays a trace in virtual time through a
 * routing policy ({@link io.kvrouter.routing.RankPolicy}: the router's own index, scheduler and
 * active-sequence books for the KV policies) and one {@link io.kvrouter.worker.engine.EngineCore}
 * per worker, with KV events reaching the policy after a configurable delay, and measures what a
 * client would see. Deterministic: the same trace, settings and seed give the same numbers.
 */
package io.kvrouter.tools.replay;
