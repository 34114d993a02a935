/**
 * Dynamo's NATS request plane ({@code DYN_REQUEST_PLANE=nats}): requests travel as NATS requests to
 * each worker endpoint's subject, responses over the TCP call-home path of {@code transport.tcp}.
 * See {@link io.kvrouter.transport.nats.NatsRequestPlane} for the message, byte for byte, and
 * docs/interop.md §10.8 for what was read and where.
 */
package io.kvrouter.transport.nats;
