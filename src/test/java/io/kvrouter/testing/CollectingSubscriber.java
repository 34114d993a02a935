package io.kvrouter.testing;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.ResponseStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/** Collects a stream's outputs; {@link #done} completes with the ending error, or null. */
public final class CollectingSubscriber implements ResponseStream.Subscriber {
  public final List<EngineOutput> outputs = new CopyOnWriteArrayList<>();
  public final CompletableFuture<Throwable> done = new CompletableFuture<>();

  @Override
  public void onOutput(EngineOutput output) {
    outputs.add(output);
  }

  @Override
  public void onComplete() {
    done.complete(null);
  }

  @Override
  public void onError(Throwable error) {
    done.complete(error);
  }

  public int[] tokens() {
    return outputs.stream().flatMapToInt(o -> java.util.Arrays.stream(o.tokenIds())).toArray();
  }
}
