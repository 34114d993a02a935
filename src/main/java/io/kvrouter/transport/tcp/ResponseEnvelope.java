package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

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
record ResponseEnvelope(
    @JsonProperty("data") StreamItem data, @JsonProperty("complete_final") boolean completeFinal) {

  static final ResponseEnvelope COMPLETE_FINAL = new ResponseEnvelope(null, true);

  static ResponseEnvelope of(StreamItem item) {
    return new ResponseEnvelope(item, false);
  }
}
