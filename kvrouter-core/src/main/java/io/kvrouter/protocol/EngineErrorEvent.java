package io.kvrouter.protocol;

/**
 * A plain engine's error event in a response stream ({@code data: {"error": …}}, vLLM's and
 * SGLang's form), carrying the engine's message.
 */
public final class EngineErrorEvent extends RuntimeException {
  public EngineErrorEvent(String message) {
    super(message, null, false, false);
  }
}
