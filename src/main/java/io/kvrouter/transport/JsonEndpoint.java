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
   * answer that fails, or this method throwing, reaches the asker as the error of the stream.
   */
  CompletionStage<byte[]> answer(byte[] request);
}
