package io.kvrouter.transport.http;

import io.kvrouter.protocol.EngineErrorEvent;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.vllm.VllmCompletions;
import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.parsetools.RecordParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A plain engine's streamed answer (server-sent events, one {@code data:} line per chunk, {@code
 * data: [DONE]} at the end, as vLLM and SGLang write them) as a {@link ResponseStream}: each chunk
 * read by the engine's {@link EngineApi.ChunkReader}, queued until the subscriber takes it. The
 * response is paused while nobody is subscribed or the subscriber paused, so HTTP flow control
 * reaches the engine. Every callback runs on the response's event loop; the public methods hop onto
 * it.
 *
 * <p>Endings: {@code [DONE]} after a finish reason completes; an error event fails with the
 * engine's message; a connection that ends or breaks first fails as a broken stream (failover or
 * migration then apply); {@link #cancel()} closes the connection, which is how vLLM learns to abort
 * the request (it has no abort route; SGLang's is posted too), and fails with {@link
 * RequestCancelledException}.
 */
final class SseResponseStream implements ResponseStream {
  private static final String DATA_TEXT = "data:";
  private static final byte[] DATA = DATA_TEXT.getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = VllmCompletions.DONE.getBytes(StandardCharsets.US_ASCII);
  private static final Object COMPLETE = new Object();

  private final Context context;
  private final HttpClientResponse response;
  private final WorkerEndpoint worker;
  private final String requestId;
  private final EngineApi.ChunkReader reader;
  private final Runnable onCancel;
  private final AtomicReference<Subscriber> subscriber = new AtomicReference<>();

  /** Outputs, then at most one ending: {@link #COMPLETE} or a {@link Throwable}. */
  private final ArrayDeque<Object> events = new ArrayDeque<>();

  private boolean ended;
  private boolean finished;
  private boolean paused;
  private boolean delivering;

  /**
   * @param reader reads the engine's chunks
   * @param onCancel what else stops the request on the engine once its connection is closed
   */
  SseResponseStream(
      Context context,
      HttpClientResponse response,
      WorkerEndpoint worker,
      String requestId,
      EngineApi.ChunkReader reader,
      Runnable onCancel) {
    this.context = context;
    this.response = response;
    this.worker = worker;
    this.requestId = requestId;
    this.reader = reader;
    this.onCancel = onCancel;
    RecordParser lines = RecordParser.newDelimited("\n", response);
    lines.handler(this::onLine);
    lines.endHandler(v -> onEnd());
    lines.exceptionHandler(this::onFailure);
    updateFlow();
  }

  @Override
  public void subscribe(Subscriber s) {
    Objects.requireNonNull(s, "subscriber");
    if (!subscriber.compareAndSet(null, s)) {
      throw new IllegalStateException(
          "response stream of request " + requestId + " already subscribed");
    }
    context.runOnContext(v -> drain());
  }

  @Override
  public void pause() {
    context.runOnContext(
        v -> {
          paused = true;
          updateFlow();
        });
  }

  @Override
  public void resume() {
    context.runOnContext(
        v -> {
          paused = false;
          drain();
        });
  }

  @Override
  public void cancel() {
    context.runOnContext(
        v -> {
          if (!ended) {
            events.clear();
            end(new RequestCancelledException("request " + requestId + " cancelled"));
            // closing the connection is vLLM's abort; a pooled connection must not be reused
            response.request().connection().close();
            onCancel.run();
          }
          drain();
        });
  }

  /**
   * One line of the event stream. The usual {@code data:} line is read as bytes, its JSON handed to
   * the parser where it lies, since this runs per token. Any other non-blank line, and a chunk the
   * bytes do not parse as, is read again as text the way every line once was (decoded with U+FFFD
   * for bad UTF-8, trimmed of all Unicode white space), so odd input reads as before.
   */
  private void onLine(Buffer raw) {
    if (ended) {
      return; // the ending is queued; what follows is read and dropped
    }
    byte[] line = raw.getBytes();
    int end = line.length;
    while (end > 0 && isSpace(line[end - 1])) {
      end--;
    }
    int start = 0;
    while (start < end && isSpace(line[start])) {
      start++;
    }
    if (start == end) {
      return; // the blank line after each event
    }
    if (startsWith(line, start, end, DATA)) {
      start += DATA.length;
      while (start < end && isSpace(line[start])) {
        start++;
      }
      if (end - start == DONE.length && startsWith(line, start, end, DONE)) {
        onDone();
        drain();
        return;
      }
      Optional<EngineOutput> output;
      try {
        output = reader.read(line, start, end - start);
      } catch (EngineErrorEvent e) {
        onEngineError(e);
        drain();
        return;
      } catch (IOException | RuntimeException e) {
        output = null; // read it as text below
      }
      if (output != null) {
        onOutput(output);
        drain();
        return;
      }
    }
    onTextLine(raw.toString());
    drain();
  }

  /** A line read as text: comments and other fields are skipped, a chunk read from its text. */
  private void onTextLine(String text) {
    String line = text.strip();
    if (!line.startsWith(DATA_TEXT)) {
      return; // comments, other fields
    }
    String data = line.substring(DATA_TEXT.length()).strip();
    if (data.equals(VllmCompletions.DONE)) {
      onDone();
      return;
    }
    byte[] json = data.getBytes(StandardCharsets.UTF_8);
    try {
      onOutput(reader.read(json, 0, json.length));
    } catch (EngineErrorEvent e) {
      onEngineError(e);
    } catch (IOException | RuntimeException e) {
      end(
          WorkerStreamException.disconnected(
              "worker " + worker.workerId() + " sent a malformed stream chunk: " + e.getMessage(),
              null));
      response.request().connection().close();
    }
  }

  private void onDone() {
    end(
        finished
            ? COMPLETE
            : WorkerStreamException.disconnected(
                "worker " + worker.workerId() + " ended its stream without a finish reason", null));
  }

  private void onEngineError(EngineErrorEvent e) {
    end(WorkerStreamException.fromEngine(worker.workerId(), e.getMessage()));
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == 0x0b || b == '\f';
  }

  private static boolean startsWith(byte[] line, int start, int end, byte[] prefix) {
    if (end - start < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (line[start + i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private void onOutput(Optional<EngineOutput> output) {
    if (output.isPresent()) {
      if (output.get().finishReason() != null && output.get().finishReason().isError()) {
        end(
            WorkerStreamException.fromEngine(
                worker.workerId(), output.get().finishReason().errorMessage()));
        return;
      }
      if (output.get().finishReason() != null) {
        finished = true;
      }
      events.add(output.get());
    }
  }

  private void onEnd() {
    end(brokenOff(null));
    drain();
  }

  private void onFailure(Throwable failure) {
    end(brokenOff(failure));
    drain();
  }

  private WorkerStreamException brokenOff(Throwable cause) {
    return WorkerStreamException.disconnected(
        "stream from worker " + worker.workerId() + " ended before generation completed", cause);
  }

  private void end(Object ending) {
    if (!ended) {
      ended = true;
      events.add(ending);
    }
  }

  private void drain() {
    if (delivering) {
      return;
    }
    delivering = true;
    try {
      Subscriber s = subscriber.get();
      while (s != null && !paused && !events.isEmpty()) {
        Object event = events.poll();
        if (event == COMPLETE) {
          s.onComplete();
        } else if (event instanceof Throwable failure) {
          s.onError(failure);
        } else {
          s.onOutput((EngineOutput) event);
        }
      }
    } finally {
      delivering = false;
    }
    updateFlow();
  }

  /** Reads on while someone takes the outputs, or once the ending is known (to drain the body). */
  private void updateFlow() {
    if (ended || (subscriber.get() != null && !paused)) {
      response.resume();
    } else {
      response.pause();
    }
  }
}
