/**
 * Dynamo's HTTP request plane ({@code DYN_REQUEST_PLANE=http}), both sides: a request's TwoPart
 * envelope is the body of a POST to the URL the worker advertises, the worker acknowledges it with
 * 202, and the response comes back over the TCP call-home path of {@code transport.tcp}. Dynamo had
 * this plane from December 2025 until May 2026 and removed it since (docs/interop.md §10.12); see
 * {@link io.kvrouter.transport.httprpc.HttpRpcClient} for the exchange, byte for byte.
 */
package io.kvrouter.transport.httprpc;
