package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * Where and how a worker calls home: Dynamo's {@code TcpStreamConnectionInfo}, carried as a JSON
 * string in {@link RequestControlMessage.ConnectionInfo#info()}.
 *
 * <pre>
 * {"address":"10.0.0.5:40001","subject":"5d0c..","context":"r1","stream_type":"response"}
 * </pre>
 *
 * @param address the frontend's call-home listener, {@code host:port} ({@code [v6]:port})
 * @param subject a fresh id per request; the worker's handshake echoes it
 * @param context the request id; Dynamo's worker refuses a stream whose context differs from it
 * @param streamType always {@code response} here
 */
@JsonPropertyOrder({"address", "subject", "context", "stream_type"})
record ResponseStreamInfo(
    @JsonProperty("address") String address,
    @JsonProperty("subject") String subject,
    @JsonProperty("context") String context,
    @JsonProperty("stream_type") String streamType) {

  static final String RESPONSE = "response";

  RequestControlMessage.ConnectionInfo connectionInfo() {
    return new RequestControlMessage.ConnectionInfo(
        RequestControlMessage.TCP_SERVER, WireJson.string(this));
  }

  static ResponseStreamInfo fromJson(String json) {
    return WireJson.read(json, ResponseStreamInfo.class, "connection info");
  }
}
