package io.kvrouter.events.zmq;

import io.kvrouter.events.VllmEventTranslator;
import io.kvrouter.protocol.KvCacheEvent;
import io.kvrouter.protocol.WorkerRank;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.routing.index.KvEventSink;
import java.util.Objects;

/**
 * The usual {@link ZmqEventSubscriber.Listener}: one rank's batches go through the translator into
 * the index, and a reset clears the rank there.
 */
public final class TranslatingListener implements ZmqEventSubscriber.Listener {
  private final WorkerRank rank;
  private final KvEventSink sink;
  private final VllmEventTranslator translator;

  /** {@code translator} must write to {@code sink}, so a reset and the batches stay in order. */
  public TranslatingListener(WorkerRank rank, KvEventSink sink, VllmEventTranslator translator) {
    this.rank = Objects.requireNonNull(rank, "rank");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.translator = Objects.requireNonNull(translator, "translator");
  }

  @Override
  public void reset() {
    sink.apply(rank, KvCacheEvent.cleared());
  }

  @Override
  public void batch(VllmEventBatch batch) {
    translator.apply(rank, batch);
  }
}
