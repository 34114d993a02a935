package io.kvrouter.protocol.dynamo;

/**
 * A Dynamo KV event payload that is not a well-formed {@code RouterEvent} (or {@code
 * KvCacheEvents}): not JSON, trailing content, a required field missing, a value of the wrong type
 * or out of range, or an unknown event variant. The message starts with the JSON path of the
 * offending field, e.g. {@code "event.data.stored.blocks[1].tokens_hash: expected an unsigned
 * 64-bit integer, got STRING"}.
 */
public final class DynamoEventFormatException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public DynamoEventFormatException(String message) {
    super(message);
  }

  public DynamoEventFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
