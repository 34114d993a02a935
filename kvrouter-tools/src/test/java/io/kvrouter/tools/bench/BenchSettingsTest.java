package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.tools.bench.BenchSettings.TokenRange;
import io.kvrouter.tools.trace.TraceRequest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchSettingsTest {
  @TempDir Path dir;

  private static BenchSettings settings(String url, Path trace, double rateScale, Double duration) {
    return settings(List.of(URI.create(url)), trace, rateScale, duration);
  }

  private static BenchSettings settings(
      List<URI> urls, Path trace, double rateScale, Double duration) {
    return new BenchSettings(
        urls,
        trace,
        rateScale,
        duration,
        Duration.ofSeconds(600),
        Duration.ofSeconds(1),
        16,
        null,
        null,
        null);
  }

  @Test
  void baseUrls_dropATrailingSlashAndKeepAPrefix() {
    assertThat(settings("http://h:8000/", Path.of("t"), 1, null).baseUrls())
        .containsExactly("http://h:8000");
    assertThat(settings("https://h/router", Path.of("t"), 1, null).baseUrls())
        .containsExactly("https://h/router");
  }

  @Test
  void aFleetOfRouters_isEveryUrlInOrder_eachOfThemChecked() {
    BenchSettings fleet =
        settings(
            List.of(URI.create("http://a:1/"), URI.create("http://b:2")), Path.of("t"), 1, null);
    assertThat(fleet.baseUrls()).containsExactly("http://a:1", "http://b:2");
    assertThatThrownBy(
            () ->
                settings(
                    List.of(URI.create("http://a:1"), URI.create("b:2")), Path.of("t"), 1, null))
        .hasMessageContaining("--url must be a router's base URL")
        .hasMessageContaining("'b:2'");
  }

  @Test
  void invalidValues_nameTheirOption() {
    assertThatThrownBy(() -> settings("localhost:8000", Path.of("t"), 1, null))
        .hasMessageContaining("--url");
    assertThatThrownBy(() -> settings("http://h:1?x=1", Path.of("t"), 1, null))
        .hasMessageContaining("--url");
    assertThatThrownBy(() -> settings("http://h:1", Path.of("t"), 0, null))
        .hasMessageContaining("--rate-scale");
    assertThatThrownBy(() -> settings("http://h:1", Path.of("t"), Double.NaN, null))
        .hasMessageContaining("--rate-scale");
    assertThatThrownBy(() -> settings("http://h:1", Path.of("t"), 1, -1.0))
        .hasMessageContaining("--duration");
  }

  @Test
  void tokenRange_parsesFirstAndCount() {
    TokenRange range = TokenRange.parse("1000:32000");
    assertThat(range.first()).isEqualTo(1000);
    assertThat(range.last()).isEqualTo(32999);
    assertThat(range).hasToString("1000..32999");
    assertThatThrownBy(() -> TokenRange.parse("10-20")).hasMessageContaining("FIRST:COUNT");
    assertThatThrownBy(() -> TokenRange.parse("10:0")).hasMessageContaining("COUNT >= 1");
    assertThatThrownBy(() -> TokenRange.parse("-1:5")).hasMessageContaining("FIRST >= 0");
  }

  @Test
  void schedule_scalesTheRateAndCutsAtTheDuration() throws IOException {
    Path trace = dir.resolve("trace.jsonl");
    Files.writeString(
        trace,
        """
        {"timestamp": 0, "input_length": 10, "output_length": 2, "hash_ids": [1]}
        {"timestamp": 1000, "input_length": 10, "output_length": 2, "hash_ids": [1]}
        {"timestamp": 3000, "input_length": 10, "output_length": 2, "hash_ids": [2]}
        """);

    List<TraceRequest> cut = TraceBench.schedule(settings("http://h:1", trace, 2, 1.0));

    assertThat(cut).extracting(TraceRequest::arrivalMillis).containsExactly(0.0, 500.0);
    assertThat(TraceBench.schedule(settings("http://h:1", trace, 1, null))).hasSize(3);
    Path late = dir.resolve("late.jsonl");
    Files.writeString(
        late,
        "{\"timestamp\": 2000, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n");
    assertThatThrownBy(() -> TraceBench.schedule(settings("http://h:1", late, 1, 2.0)))
        .hasMessageContaining("no request")
        .hasMessageContaining("--duration");
  }
}
