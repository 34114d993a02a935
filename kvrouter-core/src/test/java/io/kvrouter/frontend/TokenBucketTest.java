package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The per-minute token bucket, on a clock the test moves (nanoseconds given by hand). */
class TokenBucketTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aFullBucket_passesItsCapacityAtOnce_thenOneUnitPerMinuteOverCapacity() {
    TokenBucket bucket = new TokenBucket(6, 0); // one unit every 10 s
    for (int i = 0; i < 6; i++) {
      assertThat(bucket.take(1, 0).taken()).as("take " + i).isTrue();
    }
    TokenBucket.Take refused = bucket.take(1, 0);
    assertThat(refused.taken()).isFalse();
    assertThat(refused.waitNanos()).isEqualTo(10 * SECOND);
    assertThat(bucket.take(1, 10 * SECOND - 1).taken()).isFalse();
    assertThat(bucket.take(1, 10 * SECOND).taken()).isTrue();
    assertThat(bucket.take(1, 10 * SECOND).taken()).isFalse();
    // a minute later it is full again, and no fuller: the burst stays at the capacity
    long later = 100 * 60 * SECOND;
    for (int i = 0; i < 6; i++) {
      assertThat(bucket.take(1, later).taken()).isTrue();
    }
    assertThat(bucket.take(1, later).taken()).isFalse();
  }

  @Test
  void aLateGiveBack_returnsOnlyWhatTimeHasNotRefilledAlready() {
    TokenBucket bucket = new TokenBucket(1000, 0);
    TokenBucket.Take first = bucket.take(1000, 0); // a long stream books the whole minute
    assertThat(first.until()).isEqualTo(60 * SECOND);
    assertThat(bucket.take(1000, 60 * SECOND).taken()).isTrue(); // refilled: a second booking
    // the first ends at 90 s having used 100: its time ran out at 60 s, so nothing comes back,
    // and a third booking of the whole minute must wait (else 2,100 tokens in 30 s)
    bucket.giveBack(900, 90 * SECOND, first.until());
    assertThat(bucket.take(1000, 90 * SECOND).taken()).isFalse();
    // a booking given back before its time ran out returns that much
    TokenBucket fresh = new TokenBucket(1000, 0);
    TokenBucket.Take early = fresh.take(1000, 0);
    fresh.giveBack(900, 6 * SECOND, early.until()); // 54 s of time left, 54 s given back
    assertThat(fresh.level(6 * SECOND).remaining()).isEqualTo(1000);
  }

  @Test
  void anUnevenCapacity_stillPassesExactlyItsCapacity() {
    TokenBucket bucket = new TokenBucket(7, 5);
    int passed = 0;
    for (int i = 0; i < 20; i++) {
      passed += bucket.take(1, 5).taken() ? 1 : 0;
    }
    assertThat(passed).isEqualTo(7);
  }

  @Test
  void takingMany_waitsForThemAll_andSaysHowLong() {
    TokenBucket bucket = new TokenBucket(600, 0); // ten units a second
    assertThat(bucket.take(500, 0).taken()).isTrue();
    TokenBucket.Take refused = bucket.take(200, 0);
    assertThat(refused.taken()).isFalse();
    assertThat(refused.waitNanos()).isEqualTo(10 * SECOND); // 100 more units
    assertThat(bucket.level(0).remaining()).isEqualTo(100);
    assertThat(bucket.level(0).fullInNanos()).isEqualTo(50 * SECOND);
  }

  @Test
  void givingBack_refillsAtOnce_butNeverOverFull_andChargingGoesIntoDebt() {
    TokenBucket bucket = new TokenBucket(100, 0);
    assertThat(bucket.take(100, 0).taken()).isTrue();
    assertThat(bucket.take(30, 0).taken()).isFalse();
    bucket.giveBack(30, 0);
    assertThat(bucket.take(30, 0).taken()).isTrue();
    bucket.giveBack(1000, 0);
    assertThat(bucket.level(0).remaining()).isEqualTo(100);
    assertThat(bucket.take(101, 0).taken()).isFalse();

    bucket.charge(150, 0); // used 150 more than booked: owes 50
    assertThat(bucket.level(0).remaining()).isZero();
    TokenBucket.Take refused = bucket.take(1, 0);
    assertThat(refused.waitNanos()).isEqualTo(30 * SECOND + 600_000_000L); // 51 units of 0.6 s
  }

  @Test
  void resizing_keepsWhatWasUsed() {
    TokenBucket bucket = new TokenBucket(10, 0);
    assertThat(bucket.take(4, 0).taken()).isTrue();
    bucket.resize(100, 0);
    assertThat(bucket.level(0).remaining()).isEqualTo(96);
    bucket.resize(5, 0);
    assertThat(bucket.level(0).remaining()).isEqualTo(1);
    bucket.resize(0, 0);
    assertThat(bucket.take(1_000_000, 0).taken()).as("no limit").isTrue();
    bucket.resize(3, 0);
    assertThat(bucket.level(0).remaining()).as("from no limit, full").isEqualTo(3);
  }

  @Test
  void manyThreadsAtOnce_takeNoMoreThanTheCapacity() throws Exception {
    TokenBucket bucket = new TokenBucket(1000, 0);
    AtomicInteger passed = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  start.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < 1000; i++) {
                  if (bucket.take(1, 0).taken()) {
                    passed.incrementAndGet();
                  }
                  if (i % 10 == 0) {
                    bucket.giveBack(0, 0);
                  }
                }
              });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    assertThat(passed.get()).isEqualTo(1000);
  }

  @Test
  void resetTimes_areWrittenAsOpenAiWritesThem() {
    assertThat(RateLimitHeaders.duration(0)).isEqualTo("0ms");
    assertThat(RateLimitHeaders.duration(20_000_000L)).isEqualTo("20ms");
    assertThat(RateLimitHeaders.duration(1_500_000_000L)).isEqualTo("1.5s");
    assertThat(RateLimitHeaders.duration(12 * SECOND)).isEqualTo("12s");
    assertThat(RateLimitHeaders.duration(360 * SECOND)).isEqualTo("6m0s");
    assertThat(RateLimitHeaders.duration(61_250_000_000L)).isEqualTo("1m1.25s");
  }
}
