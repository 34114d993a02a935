package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The namespace of a key's requests: never one another key's requests can reach. */
class CacheNamespacesTest {

  @Test
  void aKeysNamespace_isItsNameThenTheClientsSalt() {
    assertThat(CacheNamespaces.perKey("alice", null)).isEqualTo("key/alice");
    assertThat(CacheNamespaces.perKey("alice", "s")).isEqualTo("key/alice/s");
    assertThat(CacheNamespaces.perKey(null, null)).isEqualTo("open");
    assertThat(CacheNamespaces.perKey(null, "s")).isEqualTo("open/s");
  }

  @Test
  void noTwoKeyAndSaltPairs_shareANamespace_whateverTheSalts() {
    // salts chosen to imitate other keys' namespaces and the separators
    List<String> keys = List.of("a", "alice", "alice.b", "b", "key", "open", "a-b", "a_b");
    List<String> salts =
        new ArrayList<>(
            Arrays.asList(
                null, "s", "/", "b", "alice", "key/alice", "open", "/s", "s/", "key//alice", ""));
    salts.remove("");
    Random random = new Random(5);
    for (int i = 0; i < 200; i++) {
      StringBuilder salt = new StringBuilder();
      for (int c = 1 + random.nextInt(8); c > 0; c--) {
        salt.append("ak/ey.o-_pen".charAt(random.nextInt(12)));
      }
      salts.add(salt.toString());
    }
    Map<String, String> seen = new HashMap<>();
    List<String> withNoKey = new ArrayList<>(keys);
    withNoKey.add(null);
    for (String key : withNoKey) {
      for (String salt : salts) {
        String pair = key + " + " + salt;
        String namespace = CacheNamespaces.perKey(key, salt);
        String other = seen.putIfAbsent(namespace, pair);
        assertThat(other == null || other.equals(pair))
            .as(pair + " and " + other + " share " + namespace)
            .isTrue();
      }
    }
  }
}
