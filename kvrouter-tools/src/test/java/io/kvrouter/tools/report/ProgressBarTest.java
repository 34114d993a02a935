package io.kvrouter.tools.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.testing.ManualTicker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@link ProgressBar} in both modes, on a {@link ManualTicker}: the elapsed seconds and the rate of
 * terminal redraws move only when a test moves the clock.
 */
class ProgressBarTest {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
  private final ManualTicker clock = new ManualTicker();

  private String printed() {
    return bytes.toString(StandardCharsets.UTF_8);
  }

  private List<String> lines() {
    return printed().lines().toList();
  }

  private static String line(int percent, int done) {
    int filled = percent * 30 / 100;
    return String.format(
        Locale.ROOT,
        "kv           \\[%s%s\\] +%d%%  %d/200 requests  0 s",
        "#".repeat(filled),
        "-".repeat(30 - filled),
        percent,
        done);
  }

  @Test
  void log_printsALinePerTenPercent_andNoExtraLineWhenFinishedAtTheEnd() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, false, clock);

    for (int done = 0; done <= 200; done++) {
      bar.update(done);
    }
    bar.finish();

    assertThat(lines()).hasSize(11);
    for (int tenth = 0; tenth <= 10; tenth++) {
      assertThat(lines().get(tenth)).matches(line(tenth * 10, tenth * 20));
    }
    assertThat(printed()).doesNotContain("\r");
  }

  @Test
  void log_finishedEarly_printsOneFinalLine() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, false, clock);

    for (int done = 0; done <= 110; done++) {
      bar.update(done);
    }
    bar.finish();

    assertThat(lines()).hasSize(7);
    assertThat(lines().get(5)).matches(line(50, 100));
    assertThat(lines().get(6)).matches(line(55, 110));
  }

  @Test
  void update_clampsToZeroAndTotal() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, false, clock);

    bar.update(-5);
    bar.update(500);

    assertThat(lines()).hasSize(2);
    assertThat(lines().get(0)).matches(line(0, 0));
    assertThat(lines().get(1)).matches(line(100, 200));
  }

  @Test
  void terminal_drawsOverTheLineWithCarriageReturns_andEndsItOnFinish() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, true, clock);

    bar.update(50);
    String first = printed();
    bar.finish();
    String finished = printed().substring(first.length());

    assertThat(first).startsWith("\r").doesNotContain("\n");
    assertThat(first.substring(1)).matches(line(25, 50));
    assertThat(finished).startsWith("\r").endsWith(System.lineSeparator());
    assertThat(finished.strip()).matches(line(25, 50));
  }

  @Test
  void finish_isIdempotent() {
    ProgressBar log = new ProgressBar("kv", 200, "requests", out, false, clock);
    log.update(30);
    log.finish();
    ProgressBar terminal = new ProgressBar("kv", 200, "requests", out, true, clock);
    terminal.finish();
    String once = printed();

    log.finish();
    terminal.finish();

    assertThat(printed()).isEqualTo(once);
    assertThat(once.split("\r", -1)).hasSize(2);
  }

  @Test
  void terminal_redrawsAtMostEvery100ms_ofItsTicker() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, true, clock);
    bar.update(50);
    String first = printed();

    clock.advance(Duration.ofMillis(99));
    bar.update(60);
    assertThat(printed()).as("too soon to redraw").isEqualTo(first);
    clock.advance(Duration.ofMillis(1));
    bar.update(70);

    assertThat(printed().substring(first.length())).isEqualTo("\r" + bar.line());
    assertThat(bar.line()).contains(" 35%  70/200 requests");
  }

  @Test
  void theTimeShown_isTheTickersSinceTheBarStarted() {
    ProgressBar bar = new ProgressBar("kv", 200, "requests", out, false, clock);
    clock.advance(Duration.ofMillis(12_999));

    assertThat(bar.line()).endsWith("  12 s");
  }

  @Test
  void total_mustBePositive() {
    assertThatThrownBy(() -> new ProgressBar("kv", 0, "requests", out, false, clock))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
