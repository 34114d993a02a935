package io.kvrouter.tools.bench;

/**
 * Turns the lines of a server-sent event stream, fed one at a time without their {@code \n}, into
 * the data of its events. It reads the part of the format OpenAI streams use: {@code data:} lines
 * (one space after the colon is dropped; several in one event are joined by {@code \n}), a blank
 * line ends the event, lines starting with {@code :} are comments and other fields ({@code event},
 * {@code id}, {@code retry}) are ignored. A trailing {@code \r} is dropped, so CRLF streams read
 * the same. One instance per stream; not thread-safe.
 */
final class SseLines {
  private final StringBuilder data = new StringBuilder();
  private boolean hasData;

  /** The data of the event this line ends, or null when it ends none (or one without data). */
  String line(String line) {
    String text = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
    if (text.isEmpty()) {
      return take();
    }
    if (text.startsWith("data:")) {
      String value = text.substring(text.startsWith("data: ") ? 6 : 5);
      if (hasData) {
        data.append('\n');
      }
      data.append(value);
      hasData = true;
    }
    return null;
  }

  /** At the end of the stream: the data of an event the stream did not end with a blank line. */
  String end() {
    return take();
  }

  private String take() {
    if (!hasData) {
      return null;
    }
    String event = data.toString();
    data.setLength(0);
    hasData = false;
    return event;
  }
}
