package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.kvrouter.tools.bench.TimelineRecorder.Sample;
import io.kvrouter.tools.report.Timeline;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TimelineRecorderTest {
  private static Map<String, Double> loads(Object... workerAndLoad) {
    Map<String, Double> loads = new LinkedHashMap<>();
    for (int i = 0; i < workerAndLoad.length; i += 2) {
      loads.put((String) workerAndLoad[i], ((Number) workerAndLoad[i + 1]).doubleValue());
    }
    return loads;
  }

  @Test
  void hitRatePerInterval_isTheMeanSinceThePreviousReading() {
    TimelineRecorder recorder = new TimelineRecorder(new HitCounts(1, 2));
    recorder.sample(1, new Sample(loads("w1", 2, "w2", 0), new HitCounts(2.5, 4)));
    // interval 2's poll failed; interval 3 covers the requests of both
    recorder.sample(3, new Sample(null, null));
    recorder.last(4, new Sample(loads("w2", 1, "w3", 4), new HitCounts(3.5, 6)));

    Timeline timeline = recorder.timeline(0.5);

    assertThat(timeline.intervalSeconds()).isEqualTo(0.5);
    assertThat(timeline.hitRate()).hasSize(4);
    assertThat(timeline.hitRate()[0]).isCloseTo(0.75, within(1e-12));
    assertThat(timeline.hitRate()[1]).isNaN();
    assertThat(timeline.hitRate()[2]).isNaN();
    assertThat(timeline.hitRate()[3]).isCloseTo(0.5, within(1e-12));
    assertThat(timeline.workers()).containsExactly("w1", "w2", "w3");
    assertThat(timeline.workerLoad()[0]).containsExactly(2, Double.NaN, Double.NaN, Double.NaN);
    assertThat(timeline.workerLoad()[1]).containsExactly(0, Double.NaN, Double.NaN, 1);
    assertThat(timeline.workerLoad()[2]).containsExactly(Double.NaN, Double.NaN, Double.NaN, 4);
    assertThat(recorder.hitRate()).isCloseTo(2.5 / 4, within(1e-12));
  }

  @Test
  void intervalsWithoutRoutedRequests_haveNoHitRate() {
    TimelineRecorder recorder = new TimelineRecorder(HitCounts.ZERO);
    recorder.sample(1, new Sample(loads(), HitCounts.ZERO));
    recorder.last(2, new Sample(loads(), HitCounts.ZERO));
    assertThat(recorder.timeline(1).hitRate()).containsOnly(Double.NaN);
    assertThat(recorder.hitRate()).isNull();
    assertThat(recorder.timeline(1).workers()).isEmpty();
  }

  @Test
  void theLastSample_replacesLaterOnesAndEndsRecording() {
    TimelineRecorder recorder = new TimelineRecorder(HitCounts.ZERO);
    recorder.sample(2, new Sample(loads("w1", 9), new HitCounts(9, 9)));
    recorder.last(2, new Sample(loads("w1", 1), new HitCounts(1, 2)));
    recorder.sample(3, new Sample(loads("w1", 7), new HitCounts(7, 7)));

    Timeline timeline = recorder.timeline(1);

    assertThat(timeline.workerLoad()[0]).containsExactly(Double.NaN, 1);
    assertThat(timeline.hitRate()[1]).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void withoutBaseline_theRunHitRateIsUnknown() {
    TimelineRecorder recorder = new TimelineRecorder(null);
    recorder.last(1, new Sample(null, new HitCounts(1, 1)));
    assertThat(recorder.hitRate()).isNull();
    assertThat(recorder.timeline(1).hitRate()).containsExactly(Double.NaN);
  }
}
