package io.kvrouter.testing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.ResponseStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntConsumer;

/**
 * Collects a stream's outputs; {@link #done} completes with the ending error, or null. An optional
 * hook gets the number of outputs collected after each one (to pause or cancel the stream from
 * inside it).
 */
public final class CollectingSubscriber implements ResponseStream.Subscriber {
  public final List<EngineOutput> outputs = new CopyOnWriteArrayList<>();
  public final CompletableFuture<Throwable> done = new CompletableFuture<>();
  private final IntConsumer afterEach;

  public CollectingSubscriber() {
    this(count -> {});
  }

  public CollectingSubscriber(IntConsumer afterEach) {
    this.afterEach = afterEach;
  }

  @Override
  public void onOutput(EngineOutput output) {
    outputs.add(output);
    afterEach.accept(outputs.size());
  }

  @Override
  public void onComplete() {
    done.complete(null);
  }

  @Override
  public void onError(Throwable error) {
    done.complete(error);
  }

  /** Subscribes a new collector to {@code stream} and waits up to 10 s for the stream's end. */
  public static CollectingSubscriber drain(ResponseStream stream) throws Exception {
    CollectingSubscriber subscriber = new CollectingSubscriber();
    stream.subscribe(subscriber);
    subscriber.done.get(10, java.util.concurrent.TimeUnit.SECONDS);
    return subscriber;
  }

  public int[] tokens() {
    return outputs.stream().flatMapToInt(o -> java.util.Arrays.stream(o.tokenIds())).toArray();
  }
}
