package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.kvrouter.protocol.PayloadCodec;

/**
 * The header of a request's TwoPart envelope: Dynamo's {@code RequestControlMessage}. It tells the
 * worker the request id and where to send the response: {@code tcp_server} (a call-home, {@link
 * ResponseStreamInfo}) or {@code tcp_response_mux_v1} ({@link ResponseMuxInfo}).
 *
 * <pre>
 * {"id":"r1","request_type":"single_in","response_type":"many_out",
 *  "connection_info":{"transport":"tcp_server","info":"{\"address\":\"10.0.0.5:40001\",...}"}}
 * </pre>
 *
 * <p>{@code info} is a JSON document serialized into a string ({@link ResponseStreamInfo}). The
 * message is JSON whatever the payload codec: Dynamo's worker reads it with {@code serde_json} to
 * learn the codec ({@code decode_control_message}, docs/interop.md §10.9). {@code payload_codec} is
 * left out for a JSON worker, which every Dynamo worker reads as JSON (serde's default, so workers
 * from before the field take it too), and written as {@code "msgpack"} for a worker that advertises
 * msgpack:
 *
 * <pre>
 * {"id":"r1","request_type":"single_in","response_type":"many_out","payload_codec":"msgpack",
 *  "connection_info":{...}}
 * </pre>
 *
 * A worker here accepts both codecs, or none. Later fields ({@code metadata}, {@code
 * frontend_send_ts_ns}, {@code request_stream_connection_info}) are ignored.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"id", "request_type", "response_type", "payload_codec", "connection_info"})
record RequestControlMessage(
    @JsonProperty("id") String id,
    @JsonProperty("request_type") String requestType,
    @JsonProperty("response_type") String responseType,
    @JsonProperty("payload_codec") String payloadCodec,
    @JsonProperty("connection_info") ConnectionInfo connectionInfo) {

  static final String SINGLE_IN = "single_in";
  static final String MANY_OUT = "many_out";
  static final String TCP_SERVER = "tcp_server";
  static final String TCP_RESPONSE_MUX = "tcp_response_mux_v1";

  /**
   * The header of a single-request, streamed-response call answered where {@code response} says: a
   * call-home ({@link ResponseStreamInfo}) or a multiplexed stream ({@link ResponseMuxInfo}).
   */
  static RequestControlMessage singleInManyOut(String id, ConnectionInfo response) {
    return singleInManyOut(id, response, PayloadCodec.JSON);
  }

  /** As above, with the body and response items in {@code codec}. */
  static RequestControlMessage singleInManyOut(
      String id, ConnectionInfo response, PayloadCodec codec) {
    return new RequestControlMessage(
        id, SINGLE_IN, MANY_OUT, codec == PayloadCodec.JSON ? null : codec.wireName(), response);
  }

  /** Which response transport to use, and its own connection details as a JSON string. */
  @JsonPropertyOrder({"transport", "info"})
  record ConnectionInfo(
      @JsonProperty("transport") String transport, @JsonProperty("info") String info) {}
}
