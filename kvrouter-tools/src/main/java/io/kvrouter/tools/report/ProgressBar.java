package io.kvrouter.tools.report;

import io.kvrouter.common.Ticker;
import java.io.PrintStream;
import java.util.Locale;

/**
 * A progress bar for long replays, drawn on one line of a terminal ({@code \r}-rewritten), or, when
 * the output is not a terminal (CI logs, pipes), one plain line at every 10%. Thread-safe; redraws
 * at most every 100 ms of its ticker's time and only when the shown numbers change.
 *
 * <pre>
 *   kv          [##########----------]  50%  1996/3993 requests  12 s
 * </pre>
 */
public final class ProgressBar {
  private static final int WIDTH = 30;
  private static final long REDRAW_NANOS = 100_000_000L;

  private final String label;
  private final long total;
  private final String unit;
  private final PrintStream out;
  private final boolean terminal;
  private final Ticker ticker;
  private final long started;
  private long done;
  private long lastDrawn = Long.MIN_VALUE;
  private int lastPercent = -1;
  private int lastTenth = -1;
  private boolean finished;

  /**
   * @param label shown first, e.g. the policy's name
   * @param total the count that means done, {@code >= 1}
   * @param unit what is counted, e.g. {@code requests}
   * @param terminal whether {@code out} is a terminal that honours {@code \r}
   * @param ticker where the time shown and the redraw interval are read
   */
  public ProgressBar(
      String label, long total, String unit, PrintStream out, boolean terminal, Ticker ticker) {
    if (total < 1) {
      throw new IllegalArgumentException("total must be >= 1: " + total);
    }
    this.label = label;
    this.total = total;
    this.unit = unit;
    this.out = out;
    this.terminal = terminal;
    this.ticker = ticker;
    this.started = ticker.nanos();
  }

  /** A bar on standard error, redrawn in place when the process has a console. */
  public static ProgressBar onStandardError(String label, long total, String unit, Ticker ticker) {
    return new ProgressBar(label, total, unit, System.err, System.console() != null, ticker);
  }

  /** Sets how much is done, {@code 0..total}. */
  public synchronized void update(long doneNow) {
    done = Math.max(0, Math.min(total, doneNow));
    int percent = (int) (done * 100 / total);
    if (terminal) {
      long now = ticker.nanos();
      if (percent != lastPercent
          && (lastDrawn == Long.MIN_VALUE || now - lastDrawn >= REDRAW_NANOS)) {
        lastDrawn = now;
        lastPercent = percent;
        out.print("\r" + line());
        out.flush();
      }
    } else if (percent / 10 != lastTenth) {
      lastTenth = percent / 10;
      out.println(line());
    }
  }

  /** Draws the final state and ends the line; later calls do nothing. */
  public synchronized void finish() {
    if (finished) {
      return;
    }
    finished = true;
    if (terminal) {
      out.println("\r" + line());
    } else if (lastTenth != 10 || done != total) {
      out.println(line());
    }
    out.flush();
  }

  /** The bar as drawn now. */
  synchronized String line() {
    int filled = (int) (done * WIDTH / total);
    long seconds = (ticker.nanos() - started) / 1_000_000_000L;
    return String.format(
        Locale.ROOT,
        "%-12s [%s%s] %3d%%  %d/%d %s  %d s",
        label,
        "#".repeat(filled),
        "-".repeat(WIDTH - filled),
        done * 100 / total,
        done,
        total,
        unit,
        seconds);
  }
}
