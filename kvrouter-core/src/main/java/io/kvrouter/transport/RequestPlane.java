package io.kvrouter.transport;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.List;

/**
 * The frontend side of a request plane: sends one preprocessed request to one worker and returns
 * its response stream, or asks one of a worker's other endpoints a question.
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

  /**
   * Asks {@code endpoint} (a worker's endpoint other than generate, such as Dynamo's {@code
   * worker_kv_indexer_query_dp{rank}}) the JSON question {@code body}. The future gives every item
   * of the answer, in order, once the worker completes it. It fails as {@link #send} does (with
   * {@link io.kvrouter.protocol.WorkerUnavailableException}, a refusal carrying the worker's reason
   * when the endpoint failed); with {@link io.kvrouter.protocol.WorkerStreamException} when the
   * answer breaks off; and when no complete answer came within {@code timeout}: as unreachable if
   * the stream had not opened, else as a broken stream.
   */
  Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout);

  /**
   * Succeeds when the worker process answers on its request plane, within a bounded time (for TCP:
   * it acknowledges a probe frame within the request timeout); fails with {@link
   * io.kvrouter.protocol.WorkerUnavailableException} otherwise. Accepting a connection is not
   * enough: a stopped process still does, from the kernel's backlog.
   */
  Future<Void> probe(WorkerEndpoint worker);

  /** Closes every connection and listener; running streams end with an error. */
  Future<Void> close();
}
