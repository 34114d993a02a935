package io.kvrouter.frontend;

import io.kvrouter.config.ApiKey;
import java.security.MessageDigest;
import java.util.List;
import java.util.Optional;

/**
 * A set of API keys, kept as their SHA-256 digests. A presented key is digested and compared with
 * every key's digest in constant time, all of them every time, so neither how much of a key matches
 * nor which key it is shows in the time an answer takes.
 */
final class ApiKeys {
  /** No key: nothing is let through by a key. */
  static final ApiKeys NONE = new ApiKeys(List.of());

  private record Entry(String name, byte[] digest) {}

  private final List<Entry> entries;

  private ApiKeys(List<Entry> entries) {
    this.entries = entries;
  }

  static ApiKeys of(List<ApiKey> keys) {
    return new ApiKeys(
        keys.stream().map(k -> new Entry(k.name(), ApiKey.sha256(k.key()))).toList());
  }

  boolean isEmpty() {
    return entries.isEmpty();
  }

  int size() {
    return entries.size();
  }

  /** The name of the key {@code presented} is, or empty when it is none of them. */
  Optional<String> nameOf(String presented) {
    byte[] digest = ApiKey.sha256(presented);
    String found = null;
    for (Entry entry : entries) {
      if (MessageDigest.isEqual(entry.digest(), digest)) {
        found = entry.name(); // no early exit: every key is compared
      }
    }
    return Optional.ofNullable(found);
  }

  /** The keys' names, for a log line. */
  List<String> names() {
    return entries.stream().map(Entry::name).toList();
  }
}
