package io.kvrouter.protocol.dynamo;

import static io.kvrouter.protocol.dynamo.MsgpackIn.at;

/**
 * The keys of one map as they are read: a known key twice is an error, as in serde (an unknown one
 * is skipped each time).
 */
final class MapKeys {
  private final MsgpackIn in;
  private final String path;

  /** A handful of field names: a linear search beats hashing, and allocates nothing. */
  private final String[] known;

  private long seen;

  MapKeys(MsgpackIn in, String path, String... known) {
    this.in = in;
    this.path = path;
    this.known = known;
  }

  /** The next key, {@code null} for a key that is not a string (its value is then skipped). */
  String next() {
    String key = in.key(path);
    if (key != null) {
      for (int i = 0; i < known.length; i++) {
        if (known[i].equals(key)) {
          if ((seen & (1L << i)) != 0) {
            throw in.fail(at(path, key), "duplicate field");
          }
          seen |= 1L << i;
          break;
        }
      }
    }
    return key;
  }

  void require(Object value, String field) {
    if (value == null) {
      throw in.fail(at(path, field), "required field is missing");
    }
  }
}
