package io.kvrouter.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class KvEventFeedTest {

  @Test
  void oneRank_isShownAsItIs() {
    KvEventFeed feed = new KvEventFeed("replaying", 9, 10, 1, 0, 0, 30);
    assertThat(KvEventFeed.combine(List.of(feed))).isSameAs(feed);
  }

  @Test
  void severalRanks_showTheWorstState_theLowestPosition_summedCounts_andTheLongestSilence() {
    KvEventFeed combined =
        KvEventFeed.combine(
            List.of(
                new KvEventFeed("following", 40, 41, 2, 1, 0, 5),
                new KvEventFeed("stale", 12, 13, 3, 2, 4, 900),
                new KvEventFeed("recovering", 30, 31, 0, 0, 1, 20)));
    assertThat(combined).isEqualTo(new KvEventFeed("stale", 12, 85, 5, 3, 5, 900));
  }

  @Test
  void everyStateHasItsPlace_andAnUnknownOneCountsAsWorst() {
    for (int i = 1; i < KvEventFeed.STATES.size(); i++) {
      String worse = KvEventFeed.STATES.get(i - 1);
      String better = KvEventFeed.STATES.get(i);
      assertThat(KvEventFeed.combine(List.of(feed(better), feed(worse))).state()).isEqualTo(worse);
    }
    assertThat(KvEventFeed.combine(List.of(feed("stopped"), feed("odd"))).state()).isEqualTo("odd");
    assertThatThrownBy(() -> KvEventFeed.combine(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void loadReportsOfSeveralRanks_addUp_andAnUnknownCountStaysUnknown() {
    WorkerRank r0 = new WorkerRank("w", 0);
    WorkerLoadReport a = new WorkerLoadReport(r0, 10, 100, 12, 64, 1, 2);
    WorkerLoadReport b =
        new WorkerLoadReport(new WorkerRank("w", 1), 5, WorkerLoadReport.UNKNOWN, 6, 64, 0, 3);
    assertThat(WorkerLoadReport.total(r0, List.of(a, b)))
        .isEqualTo(new WorkerLoadReport(r0, 15, WorkerLoadReport.UNKNOWN, 18, 128, 1, 5));
    assertThat(WorkerLoadReport.total(r0, List.of(b))).isSameAs(b);
  }

  private static KvEventFeed feed(String state) {
    return new KvEventFeed(state, 0, 0, 0, 0, 0, 0);
  }
}
