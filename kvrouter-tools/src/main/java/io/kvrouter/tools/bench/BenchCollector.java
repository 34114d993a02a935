package io.kvrouter.tools.bench;

import io.kvrouter.tools.report.Latency;
import io.kvrouter.tools.report.PolicyRun;
import io.kvrouter.tools.report.Timeline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Gathers what the client saw of every request: sends, completions with their timings, failures
 * with their messages, and the most requests in flight at once. Requests finish on several event
 * loops, so every method is synchronized; the work under the lock is a few additions.
 */
final class BenchCollector {
  /** Failure messages kept for the report; the count covers them all. */
  static final int ERRORS_KEPT = 5;

  private final IntConsumer onFinished;
  private final List<RequestResult> results = new ArrayList<>();
  private final List<String> errors = new ArrayList<>();
  private double[] itlMs = new double[1024];
  private int itlCount;
  private int failed;
  private int inFlight;
  private int maxInFlight;
  private int finished;
  private long firstSent = Long.MAX_VALUE;
  private long lastCompleted = Long.MIN_VALUE;
  private long maxLagNanos;

  /**
   * @param onFinished told the number of requests finished (either way) after each one
   */
  BenchCollector(IntConsumer onFinished) {
    this.onFinished = onFinished;
  }

  /** A request was sent at {@code nanos}, {@code lagNanos} after its scheduled time. */
  synchronized void sent(long nanos, long lagNanos) {
    firstSent = Math.min(firstSent, nanos);
    maxLagNanos = Math.max(maxLagNanos, lagNanos);
    maxInFlight = Math.max(maxInFlight, ++inFlight);
  }

  /** Request {@code index} ended with {@code [DONE]} at {@code nanos}. */
  void completed(int index, RequestClock.Timing timing, long nanos) {
    int done;
    synchronized (this) {
      results.add(new RequestResult(index, timing.ttftMs(), timing.e2eMs(), timing.outputTokens()));
      double[] gaps = timing.itlMs();
      if (itlCount + gaps.length > itlMs.length) {
        itlMs = Arrays.copyOf(itlMs, Math.max(itlMs.length * 2, itlCount + gaps.length));
      }
      System.arraycopy(gaps, 0, itlMs, itlCount, gaps.length);
      itlCount += gaps.length;
      lastCompleted = Math.max(lastCompleted, nanos);
      inFlight--;
      done = ++finished;
    }
    onFinished.accept(done);
  }

  /**
   * Request {@code index} failed: an HTTP error, a broken connection, an error event, a timeout.
   */
  void failed(int index, String message) {
    int done;
    synchronized (this) {
      if (errors.size() < ERRORS_KEPT) {
        errors.add("request #" + index + ": " + message);
      }
      failed++;
      inFlight--;
      done = ++finished;
    }
    onFinished.accept(done);
  }

  /** The completed requests, in trace order. */
  synchronized List<RequestResult> results() {
    List<RequestResult> sorted = new ArrayList<>(results);
    sorted.sort(Comparator.comparingInt(RequestResult::index));
    return sorted;
  }

  synchronized int failedCount() {
    return failed;
  }

  /** The first {@value #ERRORS_KEPT} failures, each naming its request. */
  synchronized List<String> errors() {
    return List.copyOf(errors);
  }

  /** How far behind its schedule the latest request was sent, in ms. */
  synchronized double maxLagMs() {
    return maxLagNanos / 1e6;
  }

  /**
   * The run as a report row. Throughput is output tokens over the time from the first send to the
   * last completion; the queue is the most requests in flight at the client.
   */
  synchronized PolicyRun policyRun(String label, Double hitRate, Timeline timeline) {
    double[] ttft = results.stream().mapToDouble(RequestResult::ttftMs).toArray();
    double[] e2e = results.stream().mapToDouble(RequestResult::e2eMs).toArray();
    long tokens = results.stream().mapToLong(RequestResult::outputTokens).sum();
    double seconds = results.isEmpty() ? 0 : (lastCompleted - firstSent) / 1e9;
    return new PolicyRun(
        label,
        results.size(),
        hitRate,
        Latency.of(ttft),
        Latency.of(Arrays.copyOf(itlMs, itlCount)),
        Latency.of(e2e),
        seconds > 0 ? tokens / seconds : 0,
        maxInFlight,
        ttft,
        timeline);
  }
}
