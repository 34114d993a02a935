package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseLinesTest {
  private final SseLines sse = new SseLines();

  private List<String> feed(String... lines) {
    List<String> events = new ArrayList<>();
    for (String line : lines) {
      String data = sse.line(line);
      if (data != null) {
        events.add(data);
      }
    }
    return events;
  }

  @Test
  void eachBlankLineEndsAnEvent_andOneSpaceAfterTheColonIsDropped() {
    assertThat(feed("data: {\"a\":1}", "", "data:[DONE]", ""))
        .containsExactly("{\"a\":1}", "[DONE]");
  }

  @Test
  void dataLinesOfOneEvent_areJoinedByNewlines() {
    assertThat(feed("data: first", "data:  second", "")).containsExactly("first\n second");
  }

  @Test
  void crlfLines_commentsAndOtherFields_doNotChangeTheData() {
    assertThat(feed(": keep-alive\r", "event: message\r", "id: 7\r", "data: x\r", "\r"))
        .containsExactly("x");
  }

  @Test
  void blankLinesWithoutData_endNoEvent() {
    assertThat(feed("", ": ping", "", "")).isEmpty();
  }

  @Test
  void end_givesTheDataOfAnUnfinishedEventOnce() {
    assertThat(feed("data: tail")).isEmpty();
    assertThat(sse.end()).isEqualTo("tail");
    assertThat(sse.end()).isNull();
  }
}
