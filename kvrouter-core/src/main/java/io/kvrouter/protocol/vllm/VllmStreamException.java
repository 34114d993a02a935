package io.kvrouter.protocol.vllm;

/** A vLLM server's error event in a response stream ({@code data: {"error": …}}). */
public final class VllmStreamException extends RuntimeException {
  public VllmStreamException(String message) {
    super(message, null, false, false);
  }
}
