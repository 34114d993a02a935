/**
 * The one msgpack reader of the router's decoders ({@link
 * io.kvrouter.protocol.msgpack.MsgpackReader}): vLLM's KV event batches and Dynamo's E3 envelopes,
 * events and load reports are all read through it. It reads a byte array in place, checks every
 * length header against the bytes left before anything is allocated for it, and reports every
 * failure as a {@link io.kvrouter.protocol.msgpack.MsgpackFormatException} that the codecs turn
 * into their own exception, naming the field. Pure: no Vert.x, no Netty, no I/O.
 */
package io.kvrouter.protocol.msgpack;
