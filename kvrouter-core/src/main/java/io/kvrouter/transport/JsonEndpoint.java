package io.kvrouter.transport;

import java.util.concurrent.CompletionStage;

/**
 * The worker side of {@link RequestPlane#ask}: an endpoint that answers each JSON request with one
 * JSON value, such as the worker-local KV indexer's recovery query.
 */
@FunctionalInterface
public interface JsonEndpoint {

  /**
   * The answer to {@code request} (JSON bytes), as JSON bytes; it may complete on any thread. An
   * endpoint reports a bad question in its own terms (a query's {@code {"Error": ...}}); an answer
   * that fails anyway, or this method throwing, refuses the call with the failure's message (an
   * error prologue). The answer must be ready within the asker's timeout for the question.
   */
  CompletionStage<byte[]> answer(byte[] request);
}
