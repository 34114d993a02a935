package io.kvrouter.protocol.vllm;

/**
 * A vLLM KV event payload that is not a {@code KVEventBatch}: truncated, not msgpack, a value of
 * the wrong type, an unknown event tag, a required field missing, or a length header longer than
 * the payload. The message says what was wrong and where, e.g. {@code "event 2: block_hashes:
 * expected an array, got STRING (at byte 37)"}; event numbers count from 0.
 */
public final class VllmEventFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public VllmEventFormatException(String message) {
    super(message);
  }

  public VllmEventFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
