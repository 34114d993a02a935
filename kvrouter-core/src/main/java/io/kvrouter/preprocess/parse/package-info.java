/**
 * Reads a model's generated text for what is not plain content: the reasoning between {@code
 * <think>} tags ({@code reasoning_content}) and tool calls in the model's own syntax ({@code
 * tool_calls}), streamed piece by piece. Pure text processing: no Vert.x, no Netty.
 */
package io.kvrouter.preprocess.parse;
