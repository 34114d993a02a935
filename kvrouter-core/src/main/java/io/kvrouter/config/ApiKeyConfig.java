package io.kvrouter.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Who may use the router's HTTP API.
 *
 * @param keys {@code --api-key}: keys that open the OpenAI routes ({@code /v1/...})
 * @param keysFile {@code --api-keys-file}: more such keys, read again when it changes; null for
 *     none
 * @param fileKeys the keys the file held when the configuration was read
 * @param adminKey {@code --admin-api-key}: the key that opens {@code /metrics} and {@code
 *     /router/...}; null leaves them open
 * @param limits the rate limits of every client key whose line in the keys file does not set its
 *     own; without keys, of all requests together
 * @param cacheSaltPerKey {@code --cache-salt-per-key}: every key is its own tenant of the KV cache
 *     (its name goes into each request's cache namespace); needs client keys
 */
public record ApiKeyConfig(
    List<ApiKey> keys,
    Path keysFile,
    List<ApiKey> fileKeys,
    String adminKey,
    RateLimits limits,
    boolean cacheSaltPerKey) {
  /** No keys, no limits: every route is open. */
  public static final ApiKeyConfig NONE =
      new ApiKeyConfig(List.of(), null, List.of(), null, RateLimits.NONE, false);

  public ApiKeyConfig {
    keys = List.copyOf(Objects.requireNonNull(keys, "keys"));
    fileKeys = List.copyOf(Objects.requireNonNull(fileKeys, "fileKeys"));
    Objects.requireNonNull(limits, "limits");
    if (cacheSaltPerKey && keys.isEmpty() && keysFile == null) {
      throw new IllegalArgumentException("a cache salt per key needs client keys");
    }
  }

  /**
   * The keys that open the OpenAI routes: those of {@code --api-key}, then {@code fromFile} (the
   * file's, as read at start or again since).
   *
   * @throws IllegalArgumentException when one of them is the admin key, which must be one of its
   *     own (the message names neither); when two of them share a name (a name is what limits,
   *     cache namespaces and metrics count by); when one is named {@value #ADMIN_NAME}, the admin
   *     key's name
   */
  public List<ApiKey> clientKeys(List<ApiKey> fromFile) {
    List<ApiKey> all = new ArrayList<>(keys);
    all.addAll(fromFile);
    if (adminKey != null && all.stream().anyMatch(k -> k.key().equals(adminKey))) {
      throw new IllegalArgumentException(
          "the admin key is also a client key: it must be one of its own");
    }
    java.util.Set<String> names = new java.util.HashSet<>();
    for (ApiKey key : all) {
      if (key.name().equals(ADMIN_NAME)) {
        throw new IllegalArgumentException(
            "the name " + ADMIN_NAME + " is the admin key's: give the client key another");
      }
      if (!names.add(key.name())) {
        throw new IllegalArgumentException(
            "two client keys are named " + key.name() + " (--api-key and the keys file)");
      }
    }
    return List.copyOf(all);
  }

  /** The name the admin key counts under, kept from client keys. */
  public static final String ADMIN_NAME = "admin";

  /** Whether the OpenAI routes need a key. */
  public boolean clientKeysRequired() {
    return !keys.isEmpty() || keysFile != null;
  }

  /** Counts and the file only: keys must not reach a log through the configuration. */
  @Override
  public String toString() {
    return "ApiKeyConfig[keys="
        + keys
        + ", keysFile="
        + keysFile
        + ", fileKeys="
        + fileKeys
        + ", adminKey="
        + (adminKey == null ? "none" : "set")
        + ", limits="
        + limits
        + ", cacheSaltPerKey="
        + cacheSaltPerKey
        + "]";
  }
}
