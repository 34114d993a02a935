package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.PayloadCodec;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.dynamo.RequestPlaneMsgpack;
import io.kvrouter.protocol.dynamo.RequestPlaneMsgpack.Floats;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * The payloads of the request plane in a worker's {@link PayloadCodec}: a request's body and the
 * items of its response stream (Dynamo's {@code NetworkStreamWrapper}), which Dynamo encodes with
 * the control message's {@code payload_codec} (ingress {@code decode_request}/{@code
 * encode_response} and egress {@code build_request_envelope}/{@code decode_response_stream},
 * docs/interop.md §10.9). The JSON form is the one field table; msgpack is that JSON translated
 * value by value ({@link RequestPlaneMsgpack}), with a request's floats as {@code f32} and a
 * response item's as {@code f64}, as their Rust types are. Failures surface as {@link
 * TcpCodecException}.
 */
final class Payloads {
  private Payloads() {}

  /** A generate request's body. */
  static Buffer request(PreprocessedRequest request, PayloadCodec codec) {
    if (codec == PayloadCodec.JSON) {
      return WireJson.write(request);
    }
    return Buffer.buffer(msgpack(WireJson.MAPPER.valueToTree(request), Floats.F32));
  }

  /** A question to another endpoint, given as JSON. */
  static Buffer question(byte[] json, PayloadCodec codec) {
    if (codec == PayloadCodec.JSON) {
      return Buffer.buffer(json);
    }
    try {
      return Buffer.buffer(msgpack(WireJson.MAPPER.readTree(json), Floats.F64));
    } catch (IOException e) {
      throw new TcpCodecException("the question is not JSON: " + e.getMessage(), e);
    }
  }

  /** A response-stream item (an envelope), its floats {@code f64}. */
  static Buffer item(Object envelope, PayloadCodec codec) {
    if (codec == PayloadCodec.JSON) {
      return WireJson.write(envelope);
    }
    return Buffer.buffer(msgpack(WireJson.MAPPER.valueToTree(envelope), Floats.F64));
  }

  /** Reads one item of a generate stream (per token, so JSON takes {@link OutputItemJson}). */
  static ResponseEnvelope<StreamItem> output(Buffer body, PayloadCodec codec, String what) {
    if (codec == PayloadCodec.JSON) {
      return OutputItemJson.read(body, what);
    }
    return read(body, ResponseEnvelope.OF_OUTPUT, codec, what);
  }

  /** Reads one {@code type} from {@code body}; {@code what} names it in the error message. */
  static <T> T read(Buffer body, Class<T> type, PayloadCodec codec, String what) {
    return read(body, WireJson.MAPPER.constructType(type), codec, what);
  }

  /** Reads one value of a generic {@code type} from {@code body}. */
  static <T> T read(Buffer body, JavaType type, PayloadCodec codec, String what) {
    if (codec == PayloadCodec.JSON) {
      return WireJson.read(body, type, what);
    }
    JsonNode tree;
    try {
      tree = RequestPlaneMsgpack.read(body.getBytes());
    } catch (IllegalArgumentException e) {
      throw new TcpCodecException("malformed msgpack " + what + ": " + e.getMessage(), e);
    }
    return WireJson.read(tree, type, what);
  }

  private static byte[] msgpack(JsonNode value, Floats floats) {
    try {
      return RequestPlaneMsgpack.write(value, floats);
    } catch (IllegalArgumentException e) {
      throw new TcpCodecException("cannot encode as msgpack: " + e.getMessage(), e);
    }
  }
}
