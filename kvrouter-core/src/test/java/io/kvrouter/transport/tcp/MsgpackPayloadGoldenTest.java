package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.testing.HexFixtures;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The msgpack request plane ({@code payload_codec: "msgpack"}) against the golden messages in
 * {@code golden/request-plane/}, laid out by hand from rmp-serde's rules: the request body and the
 * envelope the router sends, the response items a worker sends, both ways.
 */
class MsgpackPayloadGoldenTest {

  private static byte[] golden(String name) {
    return HexFixtures.load("/golden/request-plane/" + name);
  }

  /** The request of {@code msgpack_request_body.hex}; its floats are exact in an f32. */
  static PreprocessedRequest request() {
    return new PreprocessedRequest(
            "mock-model",
            new int[] {1, 2, 300},
            new PreprocessedRequest.StopConditions(4, null, List.of(7), null, false),
            new PreprocessedRequest.SamplingOptions(
                null, 1234L, 0.5, 0.25, -1, null, 1.5, null, null),
            new PreprocessedRequest.OutputOptions(2, true),
            List.of(2),
            List.of())
        .withDpRank(1);
  }

  @Test
  void requestBodyIsWrittenAsRmpSerdeNamed() {
    assertThat(Payloads.request(request(), PayloadCodec.MSGPACK).getBytes())
        .isEqualTo(golden("msgpack_request_body.hex"));
  }

  @Test
  void requestBodyIsReadBack() {
    Buffer body = Buffer.buffer(golden("msgpack_request_body.hex"));

    assertThat(Payloads.read(body, PreprocessedRequest.class, PayloadCodec.MSGPACK, "body"))
        .isEqualTo(request());
  }

  @Test
  void envelopeHasTheControlMessageInJsonNamingTheCodec_andTheBodyInMsgpack() {
    RequestControlMessage control =
        RequestControlMessage.singleInManyOut(
            WireSamples.REQUEST_ID,
            new ResponseStreamInfo(
                    WireSamples.CALL_HOME,
                    WireSamples.SUBJECT,
                    WireSamples.REQUEST_ID,
                    ResponseStreamInfo.RESPONSE)
                .connectionInfo(),
            PayloadCodec.MSGPACK);
    Buffer envelope =
        TwoPartEncoder.encode(
            new TwoPartMessage(
                WireJson.write(control), Payloads.request(request(), PayloadCodec.MSGPACK)),
            1 << 20);

    assertThat(envelope.getBytes()).isEqualTo(golden("msgpack_request_envelope.hex"));
  }

  @Test
  void workerTakesTheMsgpackEnvelope() {
    InboundRequest inbound =
        InboundRequest.parse(Buffer.buffer(golden("msgpack_request_envelope.hex")), 1 << 20);

    assertThat(inbound.codec()).isEqualTo(PayloadCodec.MSGPACK);
    assertThat(inbound.requestId()).isEqualTo(WireSamples.REQUEST_ID);
    assertThat(inbound.request()).isEqualTo(request());
  }

  @Test
  void jsonRequestsStillLeavePayloadCodecOut() {
    assertThat(WireJson.string(WireSamples.control())).isEqualTo(WireSamples.CONTROL_JSON);
  }

  @Test
  void responseItemsAreWrittenInMsgpack() {
    assertThat(
            Payloads.item(
                    ResponseEnvelope.of(
                        StreamItem.of(new EngineOutput(new int[] {11, 12}, null, null, null))),
                    PayloadCodec.MSGPACK)
                .getBytes())
        .isEqualTo(golden("msgpack_data_item.hex"));
    assertThat(Payloads.item(ResponseEnvelope.COMPLETE_FINAL, PayloadCodec.MSGPACK).getBytes())
        .isEqualTo(golden("msgpack_complete_final.hex"));
    assertThat(
            Payloads.item(ResponseEnvelope.of(StreamItem.of(finished())), PayloadCodec.MSGPACK)
                .getBytes())
        .isEqualTo(golden("msgpack_finished_item.hex"));
  }

  @Test
  void responseItemsAreReadFromMsgpack_pythonAndRustForms() {
    ResponseEnvelope<StreamItem> finished = item("msgpack_finished_item.hex");
    assertThat(finished.completeFinal()).isFalse();
    assertThat(finished.data().data().tokenIds()).containsExactly(13);
    assertThat(finished.data().data().finishReason()).isEqualTo(FinishReason.LENGTH);
    assertThat(finished.data().data().logProbs()).containsExactly(-0.5);

    ResponseEnvelope<StreamItem> rust = item("msgpack_rust_item.hex");
    assertThat(rust.data().data().tokenIds()).containsExactly(11);
    assertThat(rust.data().data().finishReason()).isNull();

    ResponseEnvelope<StreamItem> last = item("msgpack_complete_final.hex");
    assertThat(last.completeFinal()).isTrue();
    assertThat(last.data()).isNull();
  }

  private static ResponseEnvelope<StreamItem> item(String name) {
    return Payloads.read(
        Buffer.buffer(golden(name)), ResponseEnvelope.OF_OUTPUT, PayloadCodec.MSGPACK, name);
  }

  private static EngineOutput finished() {
    return new EngineOutput(new int[] {13}, null, FinishReason.LENGTH, null, List.of(-0.5), null);
  }
}
