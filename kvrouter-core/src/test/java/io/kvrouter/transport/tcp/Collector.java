package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.ResponseStream;
import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Collects a response stream's outputs and how it ended, and on which threads it was called. */
final class Collector implements ResponseStream.Subscriber {
  final List<EngineOutput> outputs = new ArrayList<>();
  final Set<String> threads = ConcurrentHashMap.newKeySet();
  final CompletableFuture<List<EngineOutput>> done = new CompletableFuture<>();
  volatile boolean everOffEventLoop;
  private final Consumer<EngineOutput> onEach;

  Collector() {
    this(output -> {});
  }

  Collector(Consumer<EngineOutput> onEach) {
    this.onEach = onEach;
  }

  @Override
  public synchronized void onOutput(EngineOutput output) {
    record();
    outputs.add(output);
    onEach.accept(output);
  }

  @Override
  public synchronized void onComplete() {
    record();
    done.complete(List.copyOf(outputs));
  }

  @Override
  public synchronized void onError(Throwable error) {
    record();
    done.completeExceptionally(error);
  }

  synchronized int count() {
    return outputs.size();
  }

  /** The outputs once the stream completed; throws its error if it failed. */
  List<EngineOutput> await() throws Exception {
    return done.get(20, TimeUnit.SECONDS);
  }

  /** The error the stream ended with. */
  Throwable awaitError() throws Exception {
    try {
      done.get(20, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    }
    throw new AssertionError("stream completed instead of failing: " + outputs);
  }

  static int[] tokens(List<EngineOutput> outputs) {
    List<Integer> all = new ArrayList<>();
    outputs.forEach(
        o -> {
          for (int t : o.tokenIds()) {
            all.add(t);
          }
        });
    return all.stream().mapToInt(Integer::intValue).toArray();
  }

  private void record() {
    threads.add(Thread.currentThread().getName());
    if (!Context.isOnEventLoopThread()) {
      everOffEventLoop = true;
    }
  }
}
