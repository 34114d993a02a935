package io.kvrouter.frontend;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The request headers a preflight from an allowed origin is granted ({@code
 * Access-Control-Allow-Headers}): the ones it asks for ({@code Access-Control-Request-Headers}),
 * after {@link #ALWAYS}. OpenAI's SDKs send headers of their own ({@code X-Stainless-Os}, {@code
 * X-Stainless-Retry-Count}, {@code OpenAI-Organization}, ...), which change from release to
 * release, so a fixed list would fail their preflights and every call after. Granting a header
 * grants nothing else: the request still needs its key, and credentials are never allowed. A list
 * that is longer than {@value #MAX_CHARS} characters or names something that is not an HTTP token
 * (RFC 9110 section 5.6.2) is not echoed: the answer is then {@link #ALWAYS} alone.
 */
final class CorsRequestHeaders {
  /** Granted to every preflight; {@code Authorization} carries the key. */
  static final String ALWAYS = "Authorization, Content-Type, X-Request-Id";

  /** The longest {@code Access-Control-Request-Headers} echoed. */
  static final int MAX_CHARS = 1024;

  private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

  private CorsRequestHeaders() {}

  /**
   * The value of {@code Access-Control-Allow-Headers} for a preflight that asked for {@code
   * requested}.
   */
  static String allowed(String requested) {
    if (requested == null || requested.isBlank() || requested.length() > MAX_CHARS) {
      return ALWAYS;
    }
    Map<String, String> names = new LinkedHashMap<>();
    for (String name : ALWAYS.split(", ")) {
      names.put(name.toLowerCase(Locale.ROOT), name);
    }
    for (String part : requested.split(",", -1)) {
      String name = part.trim();
      if (name.isEmpty()) {
        continue;
      }
      if (!TOKEN.matcher(name).matches()) {
        return ALWAYS;
      }
      names.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
    }
    return String.join(", ", names.values());
  }
}
