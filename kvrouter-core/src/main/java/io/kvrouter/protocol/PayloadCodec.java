package io.kvrouter.protocol;

/**
 * How a request's body and its response items are encoded on Dynamo's request plane: the {@code
 * payload_codec} of the {@code RequestControlMessage} (lib/runtime/src/pipeline/network.rs,
 * docs/interop.md §10.9). The control message itself, the prologue and the control frames stay JSON
 * whatever the codec.
 */
public enum PayloadCodec {
  /** serde_json, and what a control message without {@code payload_codec} means. */
  JSON("json"),
  /** rmp-serde's named encoding: structs as maps with string keys. */
  MSGPACK("msgpack");

  private final String wireName;

  PayloadCodec(String wireName) {
    this.wireName = wireName;
  }

  /** The name in the control message's {@code payload_codec}. */
  public String wireName() {
    return wireName;
  }

  /**
   * The codec a control message names: JSON when {@code payload_codec} is absent (serde's default,
   * for frontends older than the field).
   *
   * @throws IllegalArgumentException for any other name
   */
  public static PayloadCodec fromWire(String name) {
    if (name == null) {
      return JSON;
    }
    for (PayloadCodec codec : values()) {
      if (codec.wireName.equals(name)) {
        return codec;
      }
    }
    throw new IllegalArgumentException("unsupported payload_codec " + name);
  }
}
