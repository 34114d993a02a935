package io.kvrouter.discovery;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Whose events an event channel carries: Dynamo's {@code EventScope} (discovery/mod.rs @020f5c17),
 * serde {@code tag = "kind"}, snake_case: a namespace, a component, or an endpoint.
 *
 * @param component null for namespace scope
 * @param endpoint null unless endpoint scope
 */
public record EventScope(Kind kind, String namespace, String component, String endpoint) {

  public enum Kind {
    NAMESPACE,
    COMPONENT,
    ENDPOINT
  }

  public EventScope {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(namespace, "namespace");
    if ((kind == Kind.NAMESPACE) != (component == null)
        || (kind == Kind.ENDPOINT) != (endpoint != null)) {
      throw new IllegalArgumentException(
          kind + " scope with component " + component + ", endpoint " + endpoint);
    }
  }

  public static EventScope namespace(String namespace) {
    return new EventScope(Kind.NAMESPACE, namespace, null, null);
  }

  public static EventScope component(String namespace, String component) {
    return new EventScope(Kind.COMPONENT, namespace, component, null);
  }

  public static EventScope endpoint(String namespace, String component, String endpoint) {
    return new EventScope(Kind.ENDPOINT, namespace, component, endpoint);
  }

  /**
   * {@code EventScope::path_prefix}: {@code namespace/{ns}[/component/{c}[/endpoint/{e}]]}, each
   * segment percent-encoded outside {@code A-Z a-z 0-9 - _}.
   */
  public String pathPrefix() {
    StringBuilder out = new StringBuilder("namespace/").append(encode(namespace));
    if (component != null) {
      out.append("/component/").append(encode(component));
    }
    if (endpoint != null) {
      out.append("/endpoint/").append(encode(endpoint));
    }
    return out.toString();
  }

  /**
   * Dynamo's {@code encode_event_segment}: bytes outside {@code A-Z a-z 0-9 - _} as {@code %XX}.
   */
  static String encode(String segment) {
    StringBuilder out = new StringBuilder(segment.length());
    for (byte b : segment.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      boolean plain =
          (c >= 'A' && c <= 'Z')
              || (c >= 'a' && c <= 'z')
              || (c >= '0' && c <= '9')
              || c == '-'
              || c == '_';
      if (plain) {
        out.append((char) c);
      } else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)));
        out.append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
      }
    }
    return out.toString();
  }
}
