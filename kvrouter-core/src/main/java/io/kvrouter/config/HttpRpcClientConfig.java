package io.kvrouter.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How the router posts requests to Dynamo workers on Dynamo's HTTP request plane ({@code
 * --request-plane http}), with the names and defaults of Dynamo's {@code Http2Config}.
 *
 * @param requestTimeout how long one POST may take, from connecting to the worker's acknowledgement
 *     ({@code DYN_HTTP_REQUEST_TIMEOUT}, 5 s)
 * @param priorKnowledge speak HTTP/2 without negotiation (h2c with prior knowledge, {@code
 *     DYN_HTTP2_PRIOR_KNOWLEDGE}); HTTP/1.1 otherwise, as Dynamo's client by default
 */
public record HttpRpcClientConfig(Duration requestTimeout, boolean priorKnowledge) {

  public static final HttpRpcClientConfig DEFAULTS =
      new HttpRpcClientConfig(Duration.ofSeconds(5), false);

  public HttpRpcClientConfig {
    Objects.requireNonNull(requestTimeout, "requestTimeout");
  }
}
