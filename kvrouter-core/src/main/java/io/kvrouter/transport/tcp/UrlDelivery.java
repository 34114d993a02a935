package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.Map;
import java.util.function.Function;

/**
 * Takes request envelopes to Dynamo workers that advertise a URL instead of a TCP address ({@link
 * WorkerEndpoint#isDynamoHttp()}, Dynamo's HTTP request plane). The envelope is the one a TCP
 * request frame carries, and the response comes back to the TCP plane's call-home listener, so one
 * router reaches TCP and HTTP workers with one listener.
 */
public interface UrlDelivery {

  /**
   * Sends the envelope to {@code worker}'s URL with {@code headers}. {@code envelope} makes it,
   * given the local address of the connection it leaves on (the host a worker is told to call back
   * when none is configured); what it throws fails the delivery. The future succeeds once the
   * worker has accepted the request, and fails with {@link
   * io.kvrouter.protocol.WorkerUnavailableException} when it could not be reached or refused it.
   */
  Future<Void> deliver(
      WorkerEndpoint worker, Map<String, String> headers, Function<String, Buffer> envelope);

  /** Succeeds when the worker's server answers an empty request as a live one does. */
  Future<Void> probe(WorkerEndpoint worker);

  /** Closes its connections. */
  Future<Void> close();
}
