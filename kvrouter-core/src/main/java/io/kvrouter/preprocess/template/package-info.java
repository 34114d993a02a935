/**
 * Chat templates ({@link io.kvrouter.preprocess.template.ChatTemplate}: the demo ChatML template
 * and Hugging Face Jinja templates through our own Jinja2 interpreter, {@code jinja}). Pure and
 * synchronous: no Vert.x, no Netty.
 */
package io.kvrouter.preprocess.template;
