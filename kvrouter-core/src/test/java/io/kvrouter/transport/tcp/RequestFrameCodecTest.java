package io.kvrouter.transport.tcp;

import static io.kvrouter.transport.tcp.Golden.bytes;
import static io.kvrouter.transport.tcp.Golden.u16;
import static io.kvrouter.transport.tcp.Golden.u32;
import static io.kvrouter.transport.tcp.Golden.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.PreprocessedRequest;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestFrameCodecTest {
  private static final int MAX = TcpConfig.DEFAULT_MAX_MESSAGE_SIZE;

  @Test
  void fixtureMatchesTheSpecifiedLayout() {
    Buffer envelope = Golden.twoPart(WireSamples.CONTROL_JSON, WireSamples.BODY_JSON);
    Buffer expected =
        bytes(
            u16(8), utf8("generate"),
            u16(WireSamples.HEADERS_JSON.length()), utf8(WireSamples.HEADERS_JSON),
            u32(envelope.length()), envelope.getBytes());

    assertThat(Golden.load("request_frame.hex")).isEqualTo(expected);
    assertThat(Golden.load("two_part_request.hex")).isEqualTo(envelope);
  }

  @Test
  void encodesTheGoldenFrame() {
    Buffer payload =
        TwoPartEncoder.encode(
            new TwoPartMessage(
                WireJson.write(WireSamples.control()), WireJson.write(WireSamples.request())),
            MAX);
    Buffer frame =
        RequestFrameEncoder.encode(
            new RequestFrame("generate", Map.of("request-id", WireSamples.REQUEST_ID), payload),
            MAX);

    assertThat(payload).isEqualTo(Golden.load("two_part_request.hex"));
    assertThat(frame).isEqualTo(Golden.load("request_frame.hex"));
  }

  @Test
  void decodesTheGoldenFrameDownToTheRequest() {
    List<RequestFrame> frames = decode(Golden.load("request_frame.hex"));

    assertThat(frames).hasSize(1);
    RequestFrame frame = frames.get(0);
    assertThat(frame.path()).isEqualTo("generate");
    assertThat(frame.headers()).isEqualTo(Map.of("request-id", "req-42"));
    assertThat(frame.payload()).isEqualTo(Golden.load("two_part_request.hex"));

    InboundRequest request = InboundRequest.parse(frame.payload(), MAX);
    assertThat(request.requestId()).isEqualTo("req-42");
    assertThat(request.subject()).isEqualTo("subj-7");
    assertThat(request.callHome()).isEqualTo(new HostAndPort("127.0.0.1", 40001));
    assertThat(request.request()).isEqualTo(WireSamples.request());
  }

  @Test
  void controlHeaderDecodesToTheMessage() {
    RequestControlMessage control =
        WireJson.read(
            Buffer.buffer(WireSamples.CONTROL_JSON), RequestControlMessage.class, "control");
    assertThat(control).isEqualTo(WireSamples.control());
    assertThat(ResponseStreamInfo.fromJson(control.connectionInfo().info()))
        .isEqualTo(new ResponseStreamInfo("127.0.0.1:40001", "subj-7", "req-42", "response"));
  }

  @Test
  void emptyOrMalformedHeadersAreDropped() {
    Buffer noHeaders = bytes(u16(1), utf8("g"), u16(0), u32(1), utf8("x"));
    Buffer badHeaders = bytes(u16(1), utf8("g"), u16(3), utf8("{x]"), u32(1), utf8("x"));

    assertThat(decode(noHeaders).get(0).headers()).isEmpty();
    assertThat(decode(badHeaders).get(0).headers()).isEmpty();
    assertThat(decode(badHeaders).get(0).payload()).isEqualTo(Buffer.buffer("x"));
  }

  @Test
  void invalidUtf8PathDecodesToNoPath() {
    Buffer frame = bytes(u16(2), new byte[] {(byte) 0xC3, (byte) 0x28}, u16(0), u32(0));
    assertThat(decode(frame).get(0).path()).isNull();
  }

  @Test
  void pathLengthMustBeOneTo1024() {
    assertThatThrownBy(() -> decode(bytes(u16(0))))
        .isInstanceOf(TcpCodecException.class)
        .hasMessageContaining("path length 0");
    assertThatThrownBy(() -> decode(bytes(u16(1025))))
        .isInstanceOf(TcpCodecException.class)
        .hasMessageContaining("path length 1025");
    assertThatThrownBy(
            () -> RequestFrameEncoder.encode(new RequestFrame("", Map.of(), Buffer.buffer()), MAX))
        .isInstanceOf(TcpCodecException.class);
  }

  @Test
  void encoderWritesEmptyHeadersAsAnEmptyObject() {
    Buffer frame =
        RequestFrameEncoder.encode(new RequestFrame("g", Map.of(), Buffer.buffer("x")), MAX);
    assertThat(frame).isEqualTo(bytes(u16(1), utf8("g"), u16(2), utf8("{}"), u32(1), utf8("x")));
  }

  private static List<RequestFrame> decode(Buffer input) {
    List<RequestFrame> frames = new ArrayList<>();
    new RequestFrameDecoder(MAX).decode(input, frames::add);
    return frames;
  }

  @Test
  void aDataParallelRank_travelsAsDynamosRoutingDpRank_andIsOmittedOtherwise() {
    PreprocessedRequest plain = WireSamples.request();
    assertThat(WireJson.string(plain)).doesNotContain("routing");

    PreprocessedRequest routed = plain.withDpRank(3);
    String json = WireJson.string(routed);
    assertThat(json)
        .endsWith(
            ",\"annotations\":[],\"routing\":{\"dp_rank\":3},\"router_config_override\":null}");
    PreprocessedRequest back = WireJson.read(json, PreprocessedRequest.class, "request");
    assertThat(back).isEqualTo(routed);
    assertThat(back.dpRank()).hasValue(3);
    assertThat(plain.dpRank()).isEmpty();
  }
}
