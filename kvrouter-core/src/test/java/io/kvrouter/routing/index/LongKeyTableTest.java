package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The table against a HashMap of the same keys, under puts and removes whose keys collide. */
class LongKeyTableTest {

  /** A value carrying its key, as a block carries its hash. */
  private record Keyed(long key, String name) {}

  private static final Gen.Ints OPS = new Gen.Ints(-64, 64);

  /** 0 to 300 ops in [-64, 64], biased toward 0 ({@link Gen}). */
  static List<Long> ops(SplittableRandom random, int genSize) {
    return Gen.longs(random, new Gen.Sizes(0, 300, genSize), OPS);
  }

  /** Positive keys put, negative keys remove their negation; few distinct keys, so runs collide. */
  @Test
  void putsAndRemoves_matchHashMap() {
    Tries.forAll(300, LongKeyTableTest::ops, LongKeyTableTest::putsAndRemovesMatchHashMap);
  }

  private static void putsAndRemovesMatchHashMap(List<Long> ops) {
    LongKeyTable<Keyed> map = new LongKeyTable<>(Keyed::key);
    Map<Long, Keyed> model = new HashMap<>();
    int i = 0;
    for (long op : ops) {
      long key = Math.abs(op) * 0x10000; // many keys share low bits
      if (op >= 0) {
        Keyed v = new Keyed(key, "v" + i++);
        assertThat(map.put(v)).isEqualTo(model.put(key, v));
      } else {
        assertThat(map.remove(key)).isEqualTo(model.remove(key));
      }
      assertThat(map.size()).isEqualTo(model.size());
    }
    for (long k = 0; k <= 64; k++) {
      assertThat(map.get(k * 0x10000)).isEqualTo(model.get(k * 0x10000));
    }
    List<Keyed> values = new ArrayList<>();
    map.forEach(values::add);
    assertThat(values).containsExactlyInAnyOrderElementsOf(model.values());
  }

  @Test
  void growsAndShrinksThroughManyKeys() {
    LongKeyTable<Keyed> map = new LongKeyTable<>(Keyed::key);
    for (long k = 0; k < 10_000; k++) {
      map.put(new Keyed(k * 7919, "k" + k));
    }
    for (long k = 0; k < 10_000; k += 2) {
      assertThat(map.remove(k * 7919).name()).isEqualTo("k" + k);
    }
    assertThat(map.size()).isEqualTo(5_000);
    for (long k = 0; k < 10_000; k++) {
      Keyed found = map.get(k * 7919);
      assertThat(found == null ? null : found.name()).isEqualTo(k % 2 == 0 ? null : "k" + k);
    }
    map.clear();
    assertThat(map.size()).isZero();
    assertThat(map.get(7919)).isNull();
  }
}
