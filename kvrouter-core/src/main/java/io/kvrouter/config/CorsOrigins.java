package io.kvrouter.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * The browser origins allowed to call the OpenAI routes cross-origin ({@code --allowed-origins}):
 * none (the default: no CORS headers are ever sent, so a browser keeps every other site's page from
 * reading an answer), a list of exact origins, or any origin ({@code *}).
 *
 * @param origins exact origins ({@code scheme://host[:port]}, lower case), or the one entry {@code
 *     *}; empty for none
 */
public record CorsOrigins(List<String> origins) {
  /** No cross-origin access. */
  public static final CorsOrigins NONE = new CorsOrigins(List.of());

  /** The entry that allows every origin. */
  public static final String ANY = "*";

  public CorsOrigins {
    origins = List.copyOf(origins);
    if (origins.contains(ANY) && origins.size() > 1) {
      throw new IllegalArgumentException("'*' already allows every origin: give it alone");
    }
  }

  /** Whether cross-origin access is on at all. */
  public boolean enabled() {
    return !origins.isEmpty();
  }

  /** Whether every origin is allowed ({@code *}). */
  public boolean anyOrigin() {
    return origins.equals(List.of(ANY));
  }

  /** Whether a request's {@code Origin} header names an allowed origin; null never does. */
  public boolean allows(String origin) {
    return origin != null && (anyOrigin() || origins.contains(origin));
  }

  /**
   * One value of {@code --allowed-origins}: origins separated by commas, each as {@link #parse}.
   */
  public static List<String> parseList(String raw) {
    List<String> parsed = new java.util.ArrayList<>();
    for (String one : raw.split(",", -1)) {
      parsed.add(parse(one));
    }
    return parsed;
  }

  /**
   * One configured origin, normalised to lower case: {@code *}, or {@code http}/{@code https}
   * scheme, a host and an optional port, with nothing after (a browser's {@code Origin} header has
   * no path and no trailing slash).
   *
   * @throws IllegalArgumentException naming what is wrong
   */
  public static String parse(String raw) {
    String value = raw.strip();
    if (value.isEmpty()) {
      throw new IllegalArgumentException("an empty origin");
    }
    if (value.equals(ANY)) {
      return ANY;
    }
    URI uri;
    try {
      uri = new URI(value);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("not an origin (scheme://host[:port])");
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new IllegalArgumentException("an origin's scheme is http or https");
    }
    if (uri.getHost() == null
        || uri.getRawUserInfo() != null
        || !uri.getRawPath().isEmpty()
        || uri.getRawQuery() != null
        || uri.getRawFragment() != null) {
      throw new IllegalArgumentException(
          "an origin is scheme://host[:port], without a path or a trailing slash");
    }
    return value.toLowerCase(Locale.ROOT);
  }
}
