/**
 * Dynamo's TCP request plane: the frontend sends each request on a pooled, pipelined connection to
 * the worker, and the worker streams the response back either by dialling back ("calling home") on
 * a fresh connection, or as a logical stream on its few pooled {@code tcp_response_mux_v1}
 * connections, as the request's control message says.
 *
 * <p><b>Interop targets:</b> the call-home of Dynamo v1.5.1, the latest release that still answers
 * on it, and the {@code tcp_response_mux_v1} response stream that Dynamo's main branch made
 * mandatory ({@code lib/runtime/src/pipeline/network/tcp.rs}, {@code tcp/mux.rs} and {@code
 * tcp/mux/client.rs} at 06d22825e9111caec638c748f59d81e637747e3b; frames in {@link
 * io.kvrouter.transport.tcp.MuxFrame}, handshake in {@link io.kvrouter.transport.tcp.MuxHandshake},
 * both ends in {@link io.kvrouter.transport.tcp.FrontendMuxConnection} and {@link
 * io.kvrouter.transport.tcp.WorkerMuxConnection}; docs/interop.md §10.7). The call-home layouts
 * were checked against {@code ai-dynamo/dynamo}: {@code lib/runtime/src/pipeline/network/codec.rs},
 * {@code codec/two_part.rs}, {@code codec/zero_copy_decoder.rs}, {@code network.rs}, {@code
 * tcp.rs}, {@code tcp/server.rs}, {@code tcp/client.rs}, {@code egress/addressed_router.rs}, {@code
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
 * <p>On {@code tcp_response_mux_v1} the same prologue and items travel as {@code Prologue}, {@code
 * Data} and {@code End} frames of a 24-byte header each, the frontend answering with credits
 * ({@code WindowUpdate}, {@code ConnectionAck}) and cancelling with {@code Kill}.
 *
 * <p>The body and the data frames are in the worker's payload codec ({@code payload_codec} of the
 * control message, docs/interop.md §10.9): JSON as drawn above, or rmp-serde msgpack ({@link
 * io.kvrouter.transport.tcp.Payloads}); the control message, handshake, prologue and control frames
 * are JSON either way. The response half serves other carriers too: {@link
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
