package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.util.RawValue;
import io.kvrouter.protocol.PayloadCodec;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The body of a data frame on a call-home connection: Dynamo's {@code NetworkStreamWrapper<U>},
 * where {@code U} is what the endpoint streams. A generate stream's {@code U} is {@code
 * Annotated<LLMEngineOutput>} ({@link StreamItem}), so an output is wrapped twice; other endpoints
 * stream their values as they are, such as a KV indexer query's answer. The item is a nested JSON
 * value (not bytes). The last data frame has no item and {@code complete_final:true}; a stream that
 * ends without it broke off.
 *
 * <pre>
 * generate:         {"data":{"data":{"token_ids":[11,12]}},"complete_final":false}
 * other endpoints:  {"data":{"TooNew":{"newest_available":4}},"complete_final":false}
 * last:             {"complete_final":true}
 * </pre>
 *
 * @param <D> the item: a {@link StreamItem} on generate streams, any JSON value elsewhere
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"data", "complete_final"})
record ResponseEnvelope<D>(
    @JsonProperty("data") D data, @JsonProperty("complete_final") boolean completeFinal) {

  /** The envelope of a generate stream, whose items are annotated engine outputs. */
  static final JavaType OF_OUTPUT = type(StreamItem.class);

  /** The envelope of any other endpoint's stream, whose items are plain JSON values. */
  static final JavaType OF_JSON = type(JsonNode.class);

  static final ResponseEnvelope<?> COMPLETE_FINAL = new ResponseEnvelope<>(null, true);

  static <D> ResponseEnvelope<D> of(D item) {
    return new ResponseEnvelope<>(item, false);
  }

  /** The encoded envelope of a generate stream's item, in {@code codec}. */
  static Buffer item(StreamItem item, PayloadCodec codec) {
    return Payloads.item(of(item), codec);
  }

  /** The encoded envelope of another endpoint's answer: its JSON as it is, or in msgpack. */
  static Buffer answer(byte[] json, PayloadCodec codec) {
    if (codec == PayloadCodec.JSON) {
      return Payloads.item(of(new RawValue(new String(json, StandardCharsets.UTF_8))), codec);
    }
    try {
      return Payloads.item(of(WireJson.MAPPER.readTree(json)), codec);
    } catch (IOException e) {
      throw new TcpCodecException("the answer is not JSON: " + e.getMessage(), e);
    }
  }

  /** The encoded last envelope, {@code {"complete_final":true}} in {@code codec}. */
  static Buffer last(PayloadCodec codec) {
    return Payloads.item(COMPLETE_FINAL, codec);
  }

  private static JavaType type(Class<?> data) {
    return WireJson.MAPPER.getTypeFactory().constructParametricType(ResponseEnvelope.class, data);
  }
}
