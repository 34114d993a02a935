package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.EngineOutput;

/**
 * The body of a data frame on a call-home connection: Dynamo's {@code NetworkStreamWrapper}. The
 * item is a nested JSON value (not bytes), so an output is wrapped twice. The last data frame has
 * no item and {@code complete_final:true}; a stream that ends without it broke off.
 *
 * <pre>
 * {"data":{"data":{"token_ids":[11,12]}},"complete_final":false}
 * {"complete_final":true}
 * </pre>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"data", "complete_final"})
record ResponseEnvelope<T>(
    @JsonProperty("data") StreamItem<T> data,
    @JsonProperty("complete_final") boolean completeFinal) {

  /** The envelope of a generate stream, whose items carry engine outputs. */
  static final JavaType OF_OUTPUT = type(EngineOutput.class);

  /** The envelope of any other endpoint's stream, whose items carry plain JSON. */
  static final JavaType OF_JSON = type(JsonNode.class);

  static final ResponseEnvelope<?> COMPLETE_FINAL = new ResponseEnvelope<>(null, true);

  static <T> ResponseEnvelope<T> of(StreamItem<T> item) {
    return new ResponseEnvelope<>(item, false);
  }

  private static JavaType type(Class<?> data) {
    return WireJson.MAPPER.getTypeFactory().constructParametricType(ResponseEnvelope.class, data);
  }
}
