/**
 * Tokenizers ({@link io.kvrouter.preprocess.tokenizer.Tokenizer}: the demo byte tokenizer and
 * Hugging Face {@code tokenizer.json} through DJL) and the streaming {@link
 * io.kvrouter.preprocess.tokenizer.IncrementalDetokenizer}. Pure and synchronous: no Vert.x, no
 * Netty.
 */
package io.kvrouter.preprocess.tokenizer;
