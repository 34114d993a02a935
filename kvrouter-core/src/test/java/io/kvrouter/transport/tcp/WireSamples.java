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

  /**
   * A plain request as Dynamo's frontend writes it (docs/interop.md §10.4): always-written fields
   * in declaration order, {@code null} when unset.
   */
  static final String BODY_JSON =
      "{\"model\":\"mock-model\",\"token_ids\":[1,2,3],"
          + "\"stop_conditions\":{\"max_tokens\":4,\"stop\":null,\"stop_token_ids\":null,"
          + "\"stop_token_ids_hidden\":null,\"min_tokens\":null,\"ignore_eos\":null,"
          + "\"max_thinking_tokens\":null},"
          + "\"sampling_options\":{\"n\":null,\"best_of\":null,\"presence_penalty\":null,"
          + "\"frequency_penalty\":null,\"repetition_penalty\":null,\"temperature\":null,"
          + "\"top_p\":null,\"top_k\":null,\"min_p\":null,\"use_beam_search\":null,"
          + "\"length_penalty\":null,\"seed\":null,\"include_stop_str_in_output\":null,"
          + "\"guided_decoding\":null},"
          + "\"output_options\":{\"logprobs\":null,\"prompt_logprobs\":null,"
          + "\"skip_special_tokens\":null,\"formatted_prompt\":null,"
          + "\"return_tokens_as_token_ids\":null},"
          + "\"eos_token_ids\":[],\"mdc_sum\":null,\"annotations\":[],"
          + "\"router_config_override\":null}";

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
        new ResponseStreamInfo(CALL_HOME, SUBJECT, REQUEST_ID, ResponseStreamInfo.RESPONSE)
            .connectionInfo());
  }
}
