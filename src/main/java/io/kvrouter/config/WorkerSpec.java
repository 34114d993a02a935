package io.kvrouter.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A statically configured worker, written {@code id=w1,address=HOST:PORT[/PATH]}. The path is the
 * opaque routing path of Dynamo's TCP address; it defaults to {@code generate}.
 */
public record WorkerSpec(String id, String host, int port, String path) {

  static final String EXPECTED = "id=ID,address=HOST:PORT[/PATH] (keys: id, address)";
  private static final Set<String> KEYS = Set.of("id", "address");

  public WorkerSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
  }

  /** Parses the {@code key=value,...} form; throws {@link IllegalArgumentException} if invalid. */
  public static WorkerSpec parse(String raw) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (String part : raw.split(",")) {
      int eq = part.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("'" + part + "' is not key=value");
      }
      String key = part.substring(0, eq).trim();
      if (!KEYS.contains(key)) {
        throw new IllegalArgumentException("unknown key '" + key + "'");
      }
      if (fields.put(key, part.substring(eq + 1).trim()) != null) {
        throw new IllegalArgumentException("key '" + key + "' given twice");
      }
    }
    String id = fields.get("id");
    String address = fields.get("address");
    if (id == null || id.isEmpty() || address == null || address.isEmpty()) {
      throw new IllegalArgumentException("both id and address are required");
    }
    String path = "generate";
    int slash = address.indexOf('/');
    if (slash >= 0) {
      path = address.substring(slash + 1);
      address = address.substring(0, slash);
      if (path.isEmpty()) {
        throw new IllegalArgumentException("empty path after '/'");
      }
    }
    int colon = address.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("address '" + address + "' has no port");
    }
    String host = address.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = Parsers.intInRange(address.substring(colon + 1), 1, 65535);
    return new WorkerSpec(id, host, port, path);
  }
}
