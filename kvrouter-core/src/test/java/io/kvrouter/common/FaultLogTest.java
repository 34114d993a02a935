package io.kvrouter.common;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.kvrouter.testing.ManualTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class FaultLogTest {
  private final Logger logger = (Logger) LoggerFactory.getLogger("fault-log-test");
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private final ManualTicker ticker = new ManualTicker();

  @BeforeEach
  void attach() {
    logger.setLevel(Level.WARN);
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(appender);
  }

  private List<String> messages(Level level) {
    return appender.list.stream()
        .filter(e -> e.getLevel() == level)
        .map(ILoggingEvent::getFormattedMessage)
        .toList();
  }

  @Test
  void aFloodOfFaultsIsOneWarningPerInterval() {
    FaultLog faults = new FaultLog(logger, "bad requests", Duration.ofSeconds(60), ticker);
    for (int i = 0; i < 1000; i++) {
      faults.fault("bad #" + i);
    }
    assertThat(messages(Level.WARN))
        .containsExactly(
            "1 bad requests in the last 60 s (the latest: bad #0); each one is logged at DEBUG");

    ticker.advance(Duration.ofSeconds(59));
    faults.fault("bad #1000");
    assertThat(messages(Level.WARN)).hasSize(1);

    ticker.advance(Duration.ofSeconds(1));
    faults.fault("bad #1001");
    assertThat(messages(Level.WARN))
        .last()
        .isEqualTo(
            "1001 bad requests in the last 60 s (the latest: bad #1001); each one is logged at"
                + " DEBUG");
  }

  @Test
  void eachFaultIsLoggedAtDebug() {
    logger.setLevel(Level.DEBUG);
    FaultLog faults = new FaultLog(logger, "bad requests", Duration.ofSeconds(60), ticker);
    faults.fault("one");
    faults.fault("two");
    assertThat(messages(Level.DEBUG)).containsExactly("bad requests: one", "bad requests: two");
  }
}
