package io.kvrouter.protocol;

/**
 * The worker-side port: something that generates tokens for a preprocessed request. A request plane
 * server calls it for each accepted request and streams the result back to the frontend.
 */
public interface InferenceEngine {

  /**
   * Starts generating for {@code request}. The stream begins when subscribed and ends with a final
   * output carrying a {@link FinishReason}, or with an error.
   *
   * @param requestId the frontend's id for the request, unique while it runs
   */
  ResponseStream generate(String requestId, PreprocessedRequest request);
}
