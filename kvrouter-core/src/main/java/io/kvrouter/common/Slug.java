package io.kvrouter.common;

import java.util.Locale;

/**
 * Dynamo's slug of a name for NATS subjects and stream names ({@code Slug::slugify}, {@code
 * lib/runtime/src/slug.rs}): lowercase, then every character outside {@code a-z 0-9 - _} becomes
 * {@code _}; leading {@code _} are dropped (as {@code Slug::new} does).
 */
public final class Slug {
  private Slug() {}

  public static String of(String s) {
    String lower = s.toLowerCase(Locale.ROOT);
    StringBuilder out = new StringBuilder(lower.length());
    lower
        .codePoints()
        .forEach(
            c -> {
              boolean valid =
                  (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
              out.append(valid ? (char) c : '_');
            });
    int start = 0;
    while (start < out.length() && out.charAt(start) == '_') {
      start++;
    }
    return out.substring(start);
  }
}
