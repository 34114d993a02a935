package io.kvrouter.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.common.Outbox.Offered;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class OutboxTest {
  private final List<Integer> sent = new CopyOnWriteArrayList<>();
  private final List<String> errors = new CopyOnWriteArrayList<>();

  @Test
  void itemsGoOutInOrder_andAFailingOneDoesNotStopTheRest() {
    Outbox<Integer> outbox =
        new Outbox<Integer>(
                "test-outbox",
                100,
                item -> {
                  if (item == 3) {
                    throw new IllegalStateException("three");
                  }
                  sent.add(item);
                },
                e -> errors.add(e.getMessage()))
            .start();
    for (int i = 1; i <= 5; i++) {
      assertThat(outbox.offer(i)).isEqualTo(Offered.QUEUED);
    }

    assertThat(outbox.close(Duration.ofSeconds(30))).as("unsent").isZero();
    assertThat(sent).containsExactly(1, 2, 4, 5);
    assertThat(errors).containsExactly("three");
    assertThat(outbox.offer(6)).isEqualTo(Offered.CLOSED);
  }

  @Test
  void aFullQueueRefuses_andWhatAStuckSenderLeavesIsCountedAtClose() throws Exception {
    CountDownLatch sending = new CountDownLatch(1);
    CountDownLatch never = new CountDownLatch(1);
    Outbox<Integer> outbox =
        new Outbox<Integer>(
                "test-outbox",
                2,
                item -> {
                  sending.countDown();
                  try {
                    never.await(); // stuck until close interrupts it
                  } catch (InterruptedException e) {
                    throw new IllegalStateException("interrupted");
                  }
                },
                e -> errors.add(e.getMessage()))
            .start();
    outbox.offer(1);
    sending.await(); // 1 is with the sender: the queue has room for two more
    assertThat(outbox.offer(2)).isEqualTo(Offered.QUEUED);
    assertThat(outbox.offer(3)).isEqualTo(Offered.QUEUED);
    assertThat(outbox.offer(4)).isEqualTo(Offered.FULL);

    assertThat(outbox.close(Duration.ofMillis(10))).as("2 and 3 never went").isEqualTo(2);
    assertThat(errors).containsExactly("interrupted");
  }
}
