package io.kvrouter.transport;

import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;

/**
 * The frontend side of a request plane: sends one preprocessed request to one worker and returns
 * its response stream.
 */
public interface RequestPlane {

  /**
   * Completes when the plane is ready to send (for TCP: the response-stream listener is bound);
   * fails with a message naming what could not be set up.
   */
  Future<Void> start();

  /**
   * Sends {@code request} to {@code worker}. The future succeeds once the worker has accepted the
   * request and its response stream is open (Dynamo's prologue arrived without an error); it fails
   * with {@link io.kvrouter.protocol.WorkerUnavailableException} when the worker could not be
   * reached, refused the request or failed before streaming.
   */
  Future<ResponseStream> send(WorkerEndpoint worker, String requestId, PreprocessedRequest request);

  /** Succeeds when a connection to {@code worker} can be opened (or one is already open). */
  Future<Void> probe(WorkerEndpoint worker);

  /** Closes every connection and listener; running streams end with an error. */
  Future<Void> close();
}
