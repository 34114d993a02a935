package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.PreprocessedRequest;
import java.util.List;

/** The messages the golden fixtures hold, as JSON text and as objects. */
final class WireSamples {

  static final String REQUEST_ID = "req-42";
  static final String SUBJECT = "subj-7";
  static final String CALL_HOME = "127.0.0.1:40001";

  static final String CONTROL_JSON =
      "{\"id\":\"req-42\",\"request_type\":\"single_in\",\"response_type\":\"many_out\","
          + "\"connection_info\":{\"transport\":\"tcp_server\",\"info\":\"{\\\"address\\\":"
          + "\\\"127.0.0.1:40001\\\",\\\"subject\\\":\\\"subj-7\\\",\\\"context\\\":\\\"req-42\\\","
          + "\\\"stream_type\\\":\\\"response\\\"}\"}}";

  static final String BODY_JSON =
      "{\"model\":\"mock-model\",\"token_ids\":[1,2,3],\"stop_conditions\":{\"max_tokens\":4},"
          + "\"sampling_options\":{},\"output_options\":{},\"eos_token_ids\":[],\"annotations\":[]}";

  static final String HEADERS_JSON = "{\"request-id\":\"req-42\"}";

  private WireSamples() {}

  static PreprocessedRequest request() {
    return new PreprocessedRequest(
        "mock-model",
        new int[] {1, 2, 3},
        new PreprocessedRequest.StopConditions(4, null, null, null, null),
        null,
        null,
        List.of(),
        List.of());
  }

  static RequestControlMessage control() {
    return RequestControlMessage.singleInManyOut(
        REQUEST_ID,
        new ResponseStreamInfo(CALL_HOME, SUBJECT, REQUEST_ID, ResponseStreamInfo.RESPONSE));
  }
}
