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
 * <p>The body and the data frames are in the worker's payload codec ({@code payload_codec} of the
 * control message, docs/interop.md §10.9): JSON as drawn above, or rmp-serde msgpack ({@link
 * io.kvrouter.transport.tcp.Payloads}); the control message, handshake, prologue and control frames
 * are JSON either way. The call-home half serves other carriers too: {@link
 * io.kvrouter.transport.tcp.CallHomeRequests} builds the envelope and reads the response for a
 * request sent by NATS ({@code transport.nats}), and {@link
 * io.kvrouter.transport.tcp.CallHomeServer} serves an envelope that arrived that way.
 *
 * <p>Message types and their codecs are small classes, one per frame, each drawing its frame in its
 * Javadoc. Decoders are state machines over {@link io.vertx.core.buffer.Buffer} fragments that
 * reject an oversized length field before reading the bytes it announces. The composition root
 * wires the transport through {@link io.kvrouter.transport.tcp.TcpTransport}.
 */
package io.kvrouter.transport.tcp;
