package io.kvrouter.tools.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StreamChunkTest {
  @Test
  void done_isTheClosingEvent() {
    assertThat(StreamChunk.parse("[DONE]").done()).isTrue();
  }

  @Test
  void aChoiceWithText_isContent() {
    StreamChunk chunk =
        StreamChunk.parse(
            "{\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"k\","
                + "\"finish_reason\":null}]}");
    assertThat(chunk).isEqualTo(new StreamChunk(true, -1, null, false));
  }

  @Test
  void emptyTextAndTheFinishChunk_areNotContent() {
    assertThat(
            StreamChunk.parse(
                    "{\"choices\":[{\"index\":0,\"text\":\"\",\"finish_reason\":\"length\"}]}")
                .content())
        .isFalse();
    assertThat(StreamChunk.parse("{\"choices\":[]}").content()).isFalse();
  }

  @Test
  void usageChunk_givesCompletionTokens() {
    StreamChunk chunk =
        StreamChunk.parse(
            "{\"choices\":[],\"usage\":{\"prompt_tokens\":21,\"completion_tokens\":5,"
                + "\"total_tokens\":26}}");
    assertThat(chunk.usageTokens()).isEqualTo(5);
    assertThat(chunk.content()).isFalse();
  }

  @Test
  void errorEvent_givesItsMessage() {
    assertThat(
            StreamChunk.parse(
                    "{\"error\":{\"message\":\"worker lost\",\"type\":\"internal_error\"}}")
                .error())
        .isEqualTo("worker lost");
    assertThat(StreamChunk.parse("{\"error\":\"plain\"}").error()).isEqualTo("plain");
  }

  @Test
  void dataThatIsNotJson_isAnError() {
    assertThat(StreamChunk.parse("not json").error())
        .contains("not a JSON object")
        .contains("not json");
    assertThat(StreamChunk.parse("[1,2]").error()).contains("not a JSON object");
  }
}
