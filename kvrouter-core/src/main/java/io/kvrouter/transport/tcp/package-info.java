/**
 * Dynamo's classic TCP request plane: the frontend sends each request on a pooled, pipelined
 * connection to the worker, and the worker dials back ("calls home") on a fresh connection to
 * stream the response.
 *
 * <p><b>Interop target: Dynamo v1.5.1</b>, the latest release that still answers on the classic
 * per-request call-home (Dynamo's main branch later replaced the response side with the {@code
 * tcp_response_mux_v1} transport, which this package does not speak). The byte layouts were checked
 * against {@code ai-dynamo/dynamo}: {@code lib/runtime/src/pipeline/network/codec.rs}, {@code
 * codec/two_part.rs}, {@code codec/zero_copy_decoder.rs}, {@code network.rs}, {@code tcp.rs},
 * {@code tcp/server.rs}, {@code tcp/client.rs}, {@code egress/addressed_router.rs}, {@code
 * ingress/shared_tcp_endpoint.rs}, {@code ingress/push_handler.rs} and {@code
 * lib/runtime/src/protocols/annotated.rs}.
 *
 * <p>One request, end to end:
 *
 * <pre>
 *  frontend                                              worker
 *     | request frame: path, headers, TwoPart{control, body} |
 *     |----------------- pooled connection ----------------->|
 *     |&lt;------------------- ack (u32 + text) ----------------|  empty = accepted
 *     |                                                      |
 *     |&lt;========== call-home connection (new socket) ========|
 *     |   TwoPart header  {"subject":..,"stream_type":"response"}   handshake
 *     |   TwoPart header  {"error":null}                            prologue
 *     |   TwoPart body    {"data":{..item..},"complete_final":false} x N
 *     |   TwoPart body    {"complete_final":true}
 *     |   TwoPart header  "sentinel"
 *     |== frontend closes ==================================>|
 *     |                                                      |
 *     |   TwoPart header  "stop" / "kill"  (frontend to worker, to cancel)
 * </pre>
 *
 * <p>Message types and their codecs are small classes, one per frame, each drawing its frame in its
 * Javadoc. Decoders are state machines over {@link io.vertx.core.buffer.Buffer} fragments that
 * reject an oversized length field before reading the bytes it announces. The composition root
 * wires the transport through {@link io.kvrouter.transport.tcp.TcpTransport}.
 */
package io.kvrouter.transport.tcp;
