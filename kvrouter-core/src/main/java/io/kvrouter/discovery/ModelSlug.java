package io.kvrouter.discovery;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.bouncycastle.crypto.digests.Blake3Digest;

/**
 * A model card's {@code slug}: Dynamo's {@code Slug::from_string} = {@code slugify_unique} ({@code
 * lib/runtime/src/slug.rs} @5b7cf2be): the name lowercased, every character outside {@code a-z 0-9
 * _} replaced by {@code _}, then {@code _} and the last 8 hex digits of the BLAKE3 of the original
 * name, with leading {@code _} removed. {@code Qwen/Qwen3-0.6B} gives {@code
 * qwen_qwen3_0_6b_8ee6210e}.
 */
public final class ModelSlug {
  private ModelSlug() {}

  public static String of(String name) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    StringBuilder out = new StringBuilder(lower.length() + 9);
    lower
        .codePoints()
        .forEach(
            c ->
                out.append(
                    (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? (char) c : '_'));
    String hash = blake3Hex(name.getBytes(StandardCharsets.UTF_8));
    out.append('_').append(hash, hash.length() - 8, hash.length());
    int start = 0;
    while (start < out.length() && out.charAt(start) == '_') {
      start++;
    }
    return out.substring(start);
  }

  /** Whether {@code slug} has only the characters Dynamo's deserializer accepts. */
  public static boolean isValid(String slug) {
    return !slug.isEmpty()
        && slug.chars()
            .allMatch(
                c -> (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_');
  }

  private static String blake3Hex(byte[] bytes) {
    Blake3Digest digest = new Blake3Digest(256);
    digest.update(bytes, 0, bytes.length);
    byte[] hash = new byte[32];
    digest.doFinal(hash, 0);
    return HexFormat.of().formatHex(hash);
  }
}
