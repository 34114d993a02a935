package io.kvrouter.protocol;

/**
 * The outputs of one generation request, pushed to a single subscriber.
 *
 * <p>Callbacks for one stream arrive one at a time and in order (not always on the same thread):
 * any number of {@link Subscriber#onOutput} calls, then exactly one of {@link
 * Subscriber#onComplete} or {@link Subscriber#onError}. {@link #pause()} and {@link #resume()} are
 * flow-control hints; {@link #cancel()} asks the producer to stop and free the request, after which
 * the stream ends with {@code onError(RequestCancelledException)} unless it already ended. Methods
 * may be called from any thread.
 */
public interface ResponseStream {

  /** Starts delivery to {@code subscriber}; may be called once. */
  void subscribe(Subscriber subscriber);

  void pause();

  void resume();

  void cancel();

  /** Receives the outputs of a {@link ResponseStream}. */
  interface Subscriber {
    void onOutput(EngineOutput output);

    void onComplete();

    void onError(Throwable error);
  }
}
