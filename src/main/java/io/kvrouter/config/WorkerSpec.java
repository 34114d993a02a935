package io.kvrouter.config;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A statically configured worker, written {@code id=w1,address=HOST:PORT[/PATH][,kv-blocks=N]}.
 * The path is the opaque routing path of Dynamo's TCP address; it defaults to {@code generate}.
 * {@code kvBlocks} is the KV capacity the worker declares, 0 when not given.
 */
public record WorkerSpec(String id, String host, int port, String path, long kvBlocks) {

  static final String EXPECTED =
      "id=ID,address=HOST:PORT[/PATH][,kv-blocks=N] (keys: id, address, kv-blocks)";
  private static final Set<String> KEYS = Set.of("id", "address", "kv-blocks");

  public WorkerSpec {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(path, "path");
    if (kvBlocks < 0) {
      throw new IllegalArgumentException("kv-blocks must be >= 0");
    }
  }

  /** A worker without a declared KV capacity. */
  public WorkerSpec(String id, String host, int port, String path) {
    this(id, host, port, path, 0);
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
    String kvBlocks = fields.get("kv-blocks");
    long blocks = 0;
    if (kvBlocks != null) {
      try {
        blocks = Parsers.longs(1, 1_000_000_000L).apply(kvBlocks);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "kv-blocks '" + kvBlocks + "' is not an integer from 1 to 1000000000");
      }
    }
    return new WorkerSpec(id, host, port, path, blocks);
  }
}
