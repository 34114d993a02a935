package io.kvrouter.preprocess;

import io.kvrouter.protocol.FinishReason;

/**
 * A running generation, delivering text as the worker produces tokens. Callbacks for one generation
 * come one at a time, in order: any number of {@link Listener#onDelta}, then exactly one of {@link
 * Listener#onFinish} or {@link Listener#onError}.
 */
public interface Generation {

  /** Tokens in the prompt as sent to the worker. */
  int promptTokens();

  /** The prompt's text when the request asked for it to be echoed, else empty. */
  String echo();

  /** Starts delivery; may be called once. */
  void subscribe(Listener listener);

  void pause();

  void resume();

  /** Stops the generation at the worker; the listener then gets {@code onError}. */
  void cancel();

  /** Receives a generation's text. */
  interface Listener {
    /**
     * New output (possibly empty while a character, a possible stop string or a marker is held
     * back) and the number of tokens that arrived with it.
     */
    void onDelta(Delta delta, int newTokens);

    /** Generation ended normally; {@code completionTokens} counts every generated token. */
    void onFinish(FinishReason reason, int completionTokens);

    void onError(Throwable error);
  }
}
