package io.kvrouter.app;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.LoggerFactory;

/** Collects what the whole process logs while attached. Thread-safe. */
final class LogCapture extends AppenderBase<ILoggingEvent> implements AutoCloseable {
  private final Queue<ILoggingEvent> events = new ConcurrentLinkedQueue<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);

  private LogCapture() {}

  static LogCapture attach() {
    LogCapture capture = new LogCapture();
    capture.setContext(capture.root.getLoggerContext());
    capture.start();
    capture.root.addAppender(capture);
    return capture;
  }

  @Override
  protected void append(ILoggingEvent event) {
    events.add(event);
  }

  /** Every event so far, as "logger: message" lines with their exceptions' messages. */
  List<String> all() {
    return events.stream()
        .map(
            e ->
                e.getLoggerName()
                    + ": "
                    + e.getFormattedMessage()
                    + (e.getThrowableProxy() == null
                        ? ""
                        : " " + e.getThrowableProxy().getMessage()))
        .toList();
  }

  /** The events at {@code level} so far, as "logger: message" lines. */
  List<String> at(Level level) {
    return events.stream()
        .filter(e -> e.getLevel() == level)
        .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
        .toList();
  }

  @Override
  public void close() {
    root.detachAppender(this);
    stop();
  }
}
