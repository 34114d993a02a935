package io.kvrouter.preprocess;

import io.kvrouter.protocol.FinishReason;

/**
 * A running generation, delivering text as the worker produces tokens. Callbacks for one
 * generation come one at a time, in order: any number of {@link Listener#onDelta}, then exactly
 * one of {@link Listener#onFinish} or {@link Listener#onError}.
 */
public interface Generation {

  /** Tokens in the prompt as sent to the worker. */
  int promptTokens();

  /** Starts delivery; may be called once. */
  void subscribe(Listener listener);

  void pause();

  void resume();

  /** Stops the generation at the worker; the listener then gets {@code onError}. */
  void cancel();

  /** Receives a generation's text. */
  interface Listener {
    /**
     * New text (possibly empty while a character or a possible stop string is held back) and the
     * number of tokens that arrived with it.
     */
    void onDelta(String text, int newTokens);

    /** Generation ended normally; {@code completionTokens} counts every generated token. */
    void onFinish(FinishReason reason, int completionTokens);

    void onError(Throwable error);
  }
}
