package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every frame of a call-home connection against its golden fixture: the fixture equals the layout
 * written by hand from the spec, the encoder produces the fixture, and decoding the fixture gives
 * back the message.
 */
class CallHomeFramesGoldenTest {
  private static final int MAX = TcpConfig.DEFAULT_MAX_MESSAGE_SIZE;
  private final CallHomeFrames frames = new CallHomeFrames(MAX);

  @Test
  void handshake() {
    String json = "{\"subject\":\"subj-7\",\"stream_type\":\"response\"}";
    Buffer golden = checkHeaderOnly("handshake.hex", json, frames.handshake("subj-7"));

    assertThat(WireJson.read(decode(golden).header(), CallHomeHandshake.class, "handshake"))
        .isEqualTo(new CallHomeHandshake("subj-7", "response"));
  }

  @Test
  void prologueOk() {
    Buffer golden =
        checkHeaderOnly("prologue_ok.hex", "{\"error\":null}", frames.prologue(StreamPrologue.OK));

    StreamPrologue prologue =
        WireJson.read(decode(golden).header(), StreamPrologue.class, "prologue");
    assertThat(prologue.ok()).isTrue();
  }

  @Test
  void prologueError() {
    Buffer golden =
        checkHeaderOnly(
            "prologue_error.hex",
            "{\"error\":\"engine exploded\"}",
            frames.prologue(new StreamPrologue("engine exploded")));

    assertThat(WireJson.read(decode(golden).header(), StreamPrologue.class, "prologue"))
        .isEqualTo(new StreamPrologue("engine exploded"));
  }

  @Test
  void prologueWithATypedErrorStillDecodes() {
    Buffer json =
        Buffer.buffer("{\"error\":\"bad\",\"typed_error\":{\"error_type\":\"InvalidArgument\"}}");
    assertThat(WireJson.read(json, StreamPrologue.class, "prologue"))
        .isEqualTo(new StreamPrologue("bad"));
  }

  @Test
  void dataItem() {
    EngineOutput output = EngineOutput.tokens(11, 12);
    Buffer golden =
        checkBodyOnly(
            "data_item.hex",
            "{\"data\":{\"data\":{\"token_ids\":[11,12]}},\"complete_final\":false}",
            frames.item(StreamItem.of(output), PayloadCodec.JSON));

    assertThat(envelope(golden)).isEqualTo(ResponseEnvelope.of(StreamItem.of(output)));
  }

  @Test
  void dataItemWithFinishReason() {
    EngineOutput output = EngineOutput.finished(FinishReason.EOS, 13);
    Buffer golden =
        checkBodyOnly(
            "data_item_finished.hex",
            "{\"data\":{\"data\":{\"token_ids\":[13],\"finish_reason\":\"eos\"}},\"complete_final\":false}",
            frames.item(StreamItem.of(output), PayloadCodec.JSON));

    assertThat(envelope(golden).data().data()).isEqualTo(output);
  }

  @Test
  void dynamoEngineOutputWithExtraAndNullFieldsDecodes() {
    String json =
        "{\"data\":{\"data\":{\"token_ids\":[5],\"tokens\":null,\"text\":null,"
            + "\"cum_log_probs\":null,\"log_probs\":null,\"top_logprobs\":null,"
            + "\"finish_reason\":null,\"index\":null,\"extra_args\":null}},"
            + "\"complete_final\":false}";

    ResponseEnvelope<StreamItem> envelope =
        WireJson.read(Buffer.buffer(json), ResponseEnvelope.OF_OUTPUT, "item");

    assertThat(envelope.data().data()).isEqualTo(EngineOutput.tokens(5));
    assertThat(envelope.data().isError()).isFalse();
  }

  @Test
  void dynamoEngineOutputWithLogprobsDecodes() {
    String json =
        "{\"data\":{\"data\":{\"token_ids\":[5,6],\"cum_log_probs\":-1.5,"
            + "\"log_probs\":[-0.5,-1.0],\"top_logprobs\":[[{\"rank\":1,\"token_id\":5,"
            + "\"token\":\"a\",\"logprob\":-0.5},{\"rank\":2,\"token_id\":9,\"token\":null,"
            + "\"logprob\":-2.25}],[{\"rank\":1,\"token_id\":6,\"logprob\":-1.0}]]}},"
            + "\"complete_final\":false}";

    ResponseEnvelope<StreamItem> envelope =
        WireJson.read(Buffer.buffer(json), ResponseEnvelope.OF_OUTPUT, "item");

    assertThat(envelope.data().data())
        .isEqualTo(
            EngineOutput.tokens(5, 6)
                .withLogprobs(
                    List.of(-0.5, -1.0),
                    List.of(
                        List.of(
                            new EngineOutput.TopLogprob(1, 5, "a", -0.5),
                            new EngineOutput.TopLogprob(2, 9, null, -2.25)),
                        List.of(new EngineOutput.TopLogprob(1, 6, null, -1.0)))));
  }

  @Test
  void errorItem() {
    Buffer golden =
        checkBodyOnly(
            "error_item.hex",
            "{\"data\":{\"event\":\"error\",\"error\":{\"error_type\":\"Unknown\",\"message\":"
                + "\"engine exploded\"}},\"complete_final\":false}",
            frames.item(StreamItem.failure("engine exploded"), PayloadCodec.JSON));

    ResponseEnvelope<StreamItem> envelope = envelope(golden);
    assertThat(envelope).isEqualTo(ResponseEnvelope.of(StreamItem.failure("engine exploded")));
    assertThat(envelope.data().isError()).isTrue();
    assertThat(envelope.data().errorMessage()).isEqualTo("engine exploded");
  }

  @Test
  void engineErrorFinishReasonFromARustWorkerDecodes() {
    String json =
        "{\"data\":{\"data\":{\"token_ids\":[],\"tokens\":null,\"text\":null,"
            + "\"output_type\":\"text\",\"cum_log_probs\":null,\"log_probs\":null,"
            + "\"top_logprobs\":null,\"finish_reason\":{\"error\":\"boom\"},\"index\":null}},"
            + "\"complete_final\":false}";
    Buffer golden = Golden.load("error_finish_item.hex");
    assertThat(golden).isEqualTo(Golden.twoPart("", json));

    StreamItem item = envelope(golden).data();
    assertThat(item.isError()).isFalse();
    assertThat(item.data().finishReason()).isEqualTo(FinishReason.error("boom"));
  }

  @Test
  void engineErrorFinishReasonInTheStringFormDecodes() {
    String json =
        "{\"data\":{\"data\":{\"token_ids\":[],\"finish_reason\":\"error: boom\"}},"
            + "\"complete_final\":false}";
    Buffer golden = Golden.load("error_finish_item_string.hex");
    assertThat(golden).isEqualTo(Golden.twoPart("", json));

    assertThat(envelope(golden).data().data().finishReason()).isEqualTo(FinishReason.error("boom"));
  }

  @Test
  void legacyErrorItemDecodes() {
    String json =
        "{\"data\":{\"event\":\"error\",\"comment\":[\"engine"
            + " exploded\"]},\"complete_final\":false}";
    Buffer golden = Golden.load("error_item_legacy.hex");
    assertThat(golden).isEqualTo(Golden.twoPart("", json));

    StreamItem item = envelope(golden).data();
    assertThat(item.isError()).isTrue();
    assertThat(item.data()).isNull();
    assertThat(item.errorMessage()).isEqualTo("engine exploded");
  }

  @Test
  void completeFinal() {
    Buffer golden =
        checkBodyOnly(
            "complete_final.hex",
            "{\"complete_final\":true}",
            frames.completeFinal(PayloadCodec.JSON));

    assertThat(envelope(golden)).isEqualTo(ResponseEnvelope.COMPLETE_FINAL);
  }

  @Test
  void sentinel() {
    checkControl("sentinel.hex", "\"sentinel\"", ControlMessage.SENTINEL);
  }

  @Test
  void stop() {
    checkControl("stop.hex", "\"stop\"", ControlMessage.STOP);
  }

  @Test
  void kill() {
    checkControl("kill.hex", "\"kill\"", ControlMessage.KILL);
  }

  private void checkControl(String fixture, String json, ControlMessage message) {
    Buffer golden = checkHeaderOnly(fixture, json, frames.control(message));
    assertThat(WireJson.read(decode(golden).header(), ControlMessage.class, "control"))
        .isEqualTo(message);
  }

  /** Fixture == hand layout == encoder output, for a header-only frame. */
  private static Buffer checkHeaderOnly(String fixture, String json, Buffer encoded) {
    Buffer golden = Golden.load(fixture);
    assertThat(golden).isEqualTo(Golden.twoPart(json, ""));
    assertThat(encoded).isEqualTo(golden);
    TwoPartMessage frame = decode(golden);
    assertThat(frame.hasBody()).isFalse();
    assertThat(frame.header().toString()).isEqualTo(json);
    return golden;
  }

  /** Fixture == hand layout == encoder output, for a body-only frame. */
  private static Buffer checkBodyOnly(String fixture, String json, Buffer encoded) {
    Buffer golden = Golden.load(fixture);
    assertThat(golden).isEqualTo(Golden.twoPart("", json));
    assertThat(encoded).isEqualTo(golden);
    TwoPartMessage frame = decode(golden);
    assertThat(frame.hasHeader()).isFalse();
    assertThat(frame.body().toString()).isEqualTo(json);
    return golden;
  }

  private static TwoPartMessage decode(Buffer frame) {
    return TwoPartDecoder.decodeWhole(frame, MAX);
  }

  private static ResponseEnvelope<StreamItem> envelope(Buffer frame) {
    return WireJson.read(decode(frame).body(), ResponseEnvelope.OF_OUTPUT, "envelope");
  }
}
