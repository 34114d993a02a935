package io.kvrouter.preprocess;

/**
 * What a generation passes once its prompt is tokenized and checked against the context length,
 * before it is routed to a worker: the frontend's per-key token budget ({@code
 * --rate-limit-tokens-per-minute}). The booking it returns is settled once, with the tokens the
 * generation really used, when the generation ends (finished, failed or cancelled), or with none
 * when no worker took it.
 */
@FunctionalInterface
public interface AdmissionGate {
  /** Admits everything and books nothing. */
  AdmissionGate OPEN = (request, promptTokens, completionTokens) -> used -> {};

  /**
   * Books a generation's tokens, or refuses it by throwing (a {@link
   * io.kvrouter.protocol.RouterException}).
   *
   * @param promptTokens the prompt's tokens as they go to the worker
   * @param completionTokens the most tokens the completion may have: {@code max_tokens}, or what
   *     the context leaves without it, or {@link Integer#MAX_VALUE} when nothing bounds it
   */
  Booking admit(GenerationRequest request, int promptTokens, int completionTokens);

  /** Tokens booked for one generation. */
  @FunctionalInterface
  interface Booking {
    /** The generation ended having used {@code tokens}, prompt and completion; called once. */
    void settle(long tokens);
  }
}
