/**
 * The KV block index: a radix tree of the blocks every worker rank caches, kept from the workers'
 * KV cache events ({@link io.kvrouter.routing.index.KvEventSink}) and read to score prompts ({@link
 * io.kvrouter.routing.index.KvIndexer}). Pure: no Vert.x, no Netty, no I/O.
 */
package io.kvrouter.routing.index;
