package io.kvrouter.tools.bench;

/**
 * One request that completed, as the client measured it.
 *
 * @param index its position in the trace, from 0
 * @param ttftMs from the send to the first generated text
 * @param e2eMs from the send to {@code [DONE]}
 * @param outputTokens tokens generated, from the usage chunk
 */
public record RequestResult(int index, double ttftMs, double e2eMs, int outputTokens) {}
