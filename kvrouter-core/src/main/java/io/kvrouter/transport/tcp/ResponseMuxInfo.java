package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.UUID;

/**
 * Where a worker streams a response over a multiplexed connection: Dynamo's {@code
 * ResponseMuxConnectionInfo} ({@code lib/runtime/src/pipeline/network/tcp.rs} at 06d22825), carried
 * as a JSON string in {@link RequestControlMessage.ConnectionInfo#info()} under the transport
 * {@code tcp_response_mux_v1}.
 *
 * <pre>
 * {"address":"10.0.0.5:40001","frontend_server_id":"6f1c..","stream_id":"0b9e..","context":"r1","version":1}
 * </pre>
 *
 * @param address the frontend's response listener, {@code host:port}
 * @param frontendServerId the frontend's identity; the worker pools connections per (address, id,
 *     version) and names it in the connection handshake
 * @param streamId the logical stream's id in every frame of the response
 * @param context the request id; Dynamo's worker refuses a stream whose context differs from it
 * @param version always 1; Dynamo's worker refuses any other
 */
@JsonPropertyOrder({"address", "frontend_server_id", "stream_id", "context", "version"})
record ResponseMuxInfo(
    @JsonProperty("address") String address,
    @JsonProperty("frontend_server_id") UUID frontendServerId,
    @JsonProperty("stream_id") UUID streamId,
    @JsonProperty("context") String context,
    @JsonProperty("version") int version) {

  RequestControlMessage.ConnectionInfo connectionInfo() {
    return new RequestControlMessage.ConnectionInfo(
        RequestControlMessage.TCP_RESPONSE_MUX, WireJson.string(this));
  }

  static ResponseMuxInfo fromJson(String json) {
    return WireJson.read(json, ResponseMuxInfo.class, "response mux connection info");
  }
}
