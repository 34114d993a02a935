package io.kvrouter.discovery;

/**
 * Dynamo's u64 ids as they appear in discovery keys: Rust's {@code {:x}}, lowercase hex without
 * {@code 0x} or padding, read back with {@code u64::from_str_radix(s, 16)}. A Java {@code long}
 * carries the 64 bits; the value is unsigned.
 */
public final class DynamoIds {
  private DynamoIds() {}

  /** {@code {:x}} of the unsigned 64-bit {@code id}. */
  public static String hex(long id) {
    return Long.toHexString(id);
  }

  /** The id a key segment names; fails naming {@code key} when it is not 1-16 hex digits. */
  public static long parseHex(String segment, String key) {
    if (segment.isEmpty() || segment.length() > 16) {
      throw new DiscoveryFormatException(
          "key " + key + ": instance id '" + segment + "' is not a u64 in hex");
    }
    for (int i = 0; i < segment.length(); i++) {
      if (Character.digit(segment.charAt(i), 16) < 0) {
        throw new DiscoveryFormatException(
            "key " + key + ": instance id '" + segment + "' is not a u64 in hex");
      }
    }
    return Long.parseUnsignedLong(segment, 16);
  }

  /** The unsigned decimal form, as JSON carries a u64. */
  public static String decimal(long id) {
    return Long.toUnsignedString(id);
  }
}
