package io.kvrouter.transport.tcp;

import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frontend's view of one response stream after a good prologue, read from the worker's
 * call-home socket or from its logical stream on a multiplexed connection ({@link ResponseLink}).
 * Decoded events wait in a queue until the subscriber takes them; the link is paused while nobody
 * is subscribed or the subscriber has paused, so flow control reaches the worker (TCP's on a
 * call-home socket, the stream's credits on a mux connection). Every callback runs on the link's
 * event loop; the public methods hop onto it.
 *
 * <p>Endings: {@code complete_final} completes; an error item or a stream that stops without {@code
 * complete_final} fails with {@link WorkerStreamException}; {@link #cancel()} writes {@code
 * "kill"}, closes the socket and fails with {@link RequestCancelledException}. After the ending is
 * queued the socket keeps being read (and discarded) until the worker's sentinel, then closed.
 */
final class CallHomeStream implements ResponseStream, CallHomeReader {
  private static final Logger LOG = LoggerFactory.getLogger(CallHomeStream.class);
  private static final Object COMPLETE = new Object();

  private final Context context;
  private final ResponseLink link;
  private final WorkerEndpoint worker;
  private final String requestId;
  private final AtomicReference<Subscriber> subscriber = new AtomicReference<>();

  /** Outputs, then at most one ending: {@link #COMPLETE} or a {@link Throwable}. */
  private final ArrayDeque<Object> events = new ArrayDeque<>();

  private boolean ended;
  private boolean paused;
  private boolean delivering;
  private boolean reading = true;
  private boolean completeFinal;
  private boolean closing;

  CallHomeStream(Context context, ResponseLink link, WorkerEndpoint worker, String requestId) {
    this.context = context;
    this.link = link;
    this.worker = worker;
    this.requestId = requestId;
    updateFlow();
  }

  @Override
  public void subscribe(Subscriber s) {
    Objects.requireNonNull(s, "subscriber");
    if (!subscriber.compareAndSet(null, s)) {
      throw new IllegalStateException(
          "response stream of request " + requestId + " already subscribed");
    }
    onContext(this::drain);
  }

  @Override
  public void pause() {
    onContext(
        () -> {
          paused = true;
          updateFlow();
        });
  }

  @Override
  public void resume() {
    onContext(
        () -> {
          paused = false;
          drain();
        });
  }

  @Override
  public void cancel() {
    onContext(
        () -> {
          if (!ended) {
            events.clear();
            end(new RequestCancelledException("request " + requestId + " cancelled"));
            killAndClose();
          }
          drain();
        });
  }

  @Override
  public void onItem(Buffer body) {
    onEnvelope(Payloads.output(body, worker.codec(), "response item"));
    drain();
  }

  @Override
  public void onEnd() {
    if (!completeFinal) {
      end(brokenOff());
    }
    closing = true;
    link.close();
    drain();
  }

  /**
   * The socket closed. Vert.x reports the close before the data it still holds for a paused socket;
   * resuming lets that data, then the end of the socket ({@link #onSocketEnd}), come through.
   */
  @Override
  public void onSocketClosed() {
    closing = true;
    if (!reading) {
      reading = true;
      link.resume();
    }
  }

  /**
   * Everything the worker sent has been read: the stream counts as broken off only if it ended
   * without {@code complete_final}.
   */
  @Override
  public void onSocketEnd() {
    closing = true;
    if (!completeFinal) {
      end(brokenOff());
    }
    drain();
  }

  @Override
  public void onProtocolError(String reason) {
    end(
        WorkerStreamException.disconnected(
            "worker " + worker.workerId() + " sent a malformed response stream: " + reason, null));
    killAndClose();
    drain();
  }

  private void onEnvelope(ResponseEnvelope<StreamItem> envelope) {
    if (completeFinal) {
      LOG.warn(
          "worker {} sent an item after complete_final for request {}; ignored",
          worker.workerId(),
          requestId);
      return;
    }
    StreamItem item = envelope.data();
    if (item != null && item.isError()) {
      end(WorkerStreamException.fromEngine(worker.workerId(), item.errorMessage()));
    } else if (item != null
        && item.data() != null
        && item.data().finishReason() != null
        && item.data().finishReason().isError()) {
      // An engine error as a finish reason is an error, as for an error item (Dynamo's
      // LLMEngineOutput is a MaybeError whose error is its Error finish reason, llm_backend.rs at
      // 07d143452937c8b36dfd7fbb53bb989aca852181; docs/interop.md §11): the request fails with the
      // engine's message and the output it came with is dropped.
      end(
          WorkerStreamException.fromEngine(
              worker.workerId(), item.data().finishReason().errorMessage()));
    } else if (item != null && item.data() != null) {
      if (!ended) {
        events.add(item.data());
      }
    } else if (item == null && !envelope.completeFinal()) {
      end(
          WorkerStreamException.disconnected(
              "worker " + worker.workerId() + " sent an empty response item", null));
    }
    if (envelope.completeFinal()) {
      completeFinal = true;
      end(COMPLETE);
    }
  }

  private WorkerStreamException brokenOff() {
    return WorkerStreamException.disconnected(
        "stream from worker " + worker.workerId() + " ended before generation completed", null);
  }

  private void end(Object ending) {
    if (!ended) {
      ended = true;
      events.add(ending);
    }
  }

  private void killAndClose() {
    if (!closing) {
      closing = true;
      link.kill();
    }
  }

  private void drain() {
    if (delivering) {
      return; // a callback called back into the stream; the outer loop continues
    }
    Subscriber s = subscriber.get();
    delivering = true;
    try {
      while (s != null
          && !events.isEmpty()
          && (!paused || !(events.peek() instanceof EngineOutput))) {
        Object event = events.poll();
        try {
          if (event instanceof EngineOutput output) {
            s.onOutput(output);
          } else if (event == COMPLETE) {
            s.onComplete();
          } else {
            s.onError((Throwable) event);
          }
        } catch (RuntimeException e) {
          LOG.error("subscriber of request {} failed; cancelling the stream", requestId, e);
          events.clear();
          ended = true;
          killAndClose();
          if (event instanceof EngineOutput) {
            // The stream still owes its subscriber exactly one ending.
            try {
              s.onError(e);
            } catch (RuntimeException again) {
              LOG.error("subscriber of request {} failed on its error too", requestId, again);
            }
          }
        }
      }
    } finally {
      delivering = false;
    }
    updateFlow();
  }

  /** Reads while someone consumes, or after the ending to drain the socket up to the sentinel. */
  private void updateFlow() {
    boolean wanted = ended || (subscriber.get() != null && !paused);
    if (wanted != reading && !closing) {
      reading = wanted;
      if (wanted) {
        link.resume();
      } else {
        link.pause();
      }
    }
  }

  private void onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
