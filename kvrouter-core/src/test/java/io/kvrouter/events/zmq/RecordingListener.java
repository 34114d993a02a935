package io.kvrouter.events.zmq;

import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * A listener for tests whose batches each remove one block (the block numbers the batch): it
 * records every batch's block, and -1 for every reset.
 */
final class RecordingListener implements ZmqEventSubscriber.Listener {
  private final List<Long> calls = new ArrayList<>();
  private final LongConsumer beforeRecording;

  RecordingListener() {
    this(block -> {});
  }

  /** {@code beforeRecording} sees each batch's block first, and may throw instead. */
  RecordingListener(LongConsumer beforeRecording) {
    this.beforeRecording = beforeRecording;
  }

  @Override
  public synchronized void reset() {
    calls.add(-1L);
  }

  @Override
  public void batch(VllmEventBatch batch) {
    long block = ((VllmEvent.BlockRemoved) batch.events().get(0)).blockHashes().get(0);
    beforeRecording.accept(block);
    synchronized (this) {
      calls.add(block);
    }
  }

  /** Every call so far: blocks, and -1 for resets. */
  synchronized List<Long> calls() {
    return List.copyOf(calls);
  }

  /** The batches' blocks so far, in order. */
  synchronized List<Long> batches() {
    return calls.stream().filter(b -> b >= 0).toList();
  }
}
