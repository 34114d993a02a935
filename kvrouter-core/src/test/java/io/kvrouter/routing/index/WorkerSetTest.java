package io.kvrouter.routing.index;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class WorkerSetTest {

  private static final Gen.Ints IDS = new Gen.Ints(0, 30);

  /** Ids to add, then ids to remove: 0 to 40 of each, in [0, 30], biased toward 0 ({@link Gen}). */
  record Ops(List<Integer> adds, List<Integer> removes) {}

  static Ops ops(SplittableRandom random, int genSize) {
    return new Ops(ids(random, genSize), ids(random, genSize));
  }

  private static List<Integer> ids(SplittableRandom random, int genSize) {
    int size = new Gen.Sizes(0, 40, genSize).next(random);
    List<Integer> ids = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      ids.add(IDS.nextInt(random));
    }
    return ids;
  }

  @Test
  void withAndWithout_matchASortedSet() {
    Tries.forAll(300, WorkerSetTest::ops, WorkerSetTest::withAndWithoutMatchASortedSet);
  }

  private static void withAndWithoutMatchASortedSet(Ops ops) {
    List<Integer> adds = ops.adds();
    List<Integer> removes = ops.removes();
    WorkerSet set = WorkerSet.of(adds.isEmpty() ? 0 : adds.get(0));
    TreeSet<Integer> model = new TreeSet<>(List.of(adds.isEmpty() ? 0 : adds.get(0)));
    for (int a : adds) {
      set = set.with(a);
      model.add(a);
    }
    for (int r : removes) {
      set = set.without(r);
      model.remove(r);
    }
    assertThat(Arrays.stream(set.ids()).boxed().toList()).containsExactlyElementsOf(model);
    assertThat(set.size()).isEqualTo(model.size());
    long fingerprint = model.stream().mapToLong(WorkerSet::mix).sum();
    assertThat(set.fingerprint()).isEqualTo(fingerprint);
    for (int i = 0; i <= 30; i++) {
      assertThat(set.contains(i)).isEqualTo(model.contains(i));
    }
  }

  @Test
  void with_member_returnsSameSet() {
    WorkerSet set = WorkerSet.of(3).with(5);

    assertThat(set.with(3)).isSameAs(set);
    assertThat(set.without(4)).isSameAs(set);
  }

  @Test
  void fingerprint_differsForDifferentSetsOfTheSameSize() {
    assertThat(WorkerSet.of(1).with(2).fingerprint())
        .isNotEqualTo(WorkerSet.of(0).with(3).fingerprint());
    assertThat(WorkerSet.of(1).fingerprint()).isNotEqualTo(WorkerSet.of(2).fingerprint());
  }

  /** isWith against building the set: exact membership, not only size and fingerprint. */
  @Test
  void isWith_matchesBuildingTheSet() {
    Tries.forAll(300, WorkerSetTest::ops, WorkerSetTest::isWithMatchesBuilding);
  }

  private static void isWithMatchesBuilding(Ops ops) {
    WorkerSet base = WorkerSet.of(31);
    for (int a : ops.adds()) {
      base = base.with(a);
    }
    WorkerSet other = WorkerSet.of(31);
    for (int r : ops.removes()) {
      other = other.with(r);
    }
    for (int id = 0; id <= 32; id++) {
      WorkerSet built = base.with(id);
      boolean expected = !base.contains(id);
      assertThat(built.isWith(base, id)).as("%s + %d", base, id).isEqualTo(expected);
      boolean otherIs = Arrays.equals(other.ids(), built.ids()) && !base.contains(id);
      assertThat(other.isWith(base, id)).as("%s vs %s + %d", other, base, id).isEqualTo(otherIs);
    }
  }
}
