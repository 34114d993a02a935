package io.kvrouter.worker.engine;

/**
 * What an {@link EngineCore} reports of its requests, from inside {@link EngineCore#completeStep}.
 */
public interface EngineListener {

  /**
   * The request generated its token number {@code index} (0 for the first, which ends its prefill).
   *
   * @return true to end the request with this token (a stop condition); it also ends after {@code
   *     maxOutputTokens} tokens whatever this returns
   */
  boolean onToken(EngineRequest request, int index);

  /** The request ended; its blocks are released. */
  void onFinished(EngineRequest request);
}
