package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The first frame a worker sends on a call-home connection, header-only: Dynamo's {@code
 * CallHomeHandshake}. The frontend matches the connection to its pending request by {@code
 * subject}.
 *
 * <pre>
 * {"subject":"5d0c..","stream_type":"response"}
 * </pre>
 */
@JsonPropertyOrder({"subject", "stream_type"})
record CallHomeHandshake(
    @JsonProperty("subject") String subject, @JsonProperty("stream_type") String streamType) {}
