package io.kvrouter.config;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A client's API key and the name it goes by in metrics and logs. The key itself is never shown:
 * {@link #toString} gives the name only, and a key given without a name is named after the first
 * bytes of its SHA-256 ({@code key-1a2b3c4d}), which says nothing of the key.
 *
 * @param name what metrics and logs call the key: letters, digits, {@code _ . -}, up to 64
 * @param key what the client sends as {@code Authorization: Bearer KEY}: printable ASCII without
 *     spaces, 16 to 512 characters
 * @param limits the rate limits its line in the keys file sets, over the flags' defaults
 */
public record ApiKey(String name, String key, RateLimitOverrides limits) {
  private static final int MIN_KEY = 16;
  private static final int MAX_KEY = 512;

  public ApiKey {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(limits, "limits");
    // neither message repeats what it refuses: a key given where a name goes is still a key
    if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException(
          "a key's name is 1 to 64 letters, digits, '_', '.' or '-'");
    }
    if (key.length() < MIN_KEY
        || key.length() > MAX_KEY
        || !key.chars().allMatch(c -> c > 0x20 && c < 0x7f)) {
      throw new IllegalArgumentException(
          "an API key is "
              + MIN_KEY
              + " to "
              + MAX_KEY
              + " printable ASCII characters without spaces (a short key is a guessable one;"
              + " in a keys file, the name comes first: NAME KEY)");
    }
  }

  /** A key under {@code name} with the default limits. */
  public ApiKey(String name, String key) {
    this(name, key, RateLimitOverrides.NONE);
  }

  /** {@code key} under the name its digest gives it. */
  public static ApiKey unnamed(String key) {
    Objects.requireNonNull(key, "key");
    return new ApiKey("key-" + HexFormat.of().formatHex(sha256(key), 0, 4), key);
  }

  /** The SHA-256 of {@code key}'s bytes. */
  public static byte[] sha256(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.US_ASCII));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }

  /** The name only: a key must not reach a log through its record. */
  @Override
  public String toString() {
    return "ApiKey[" + name + "]";
  }
}
