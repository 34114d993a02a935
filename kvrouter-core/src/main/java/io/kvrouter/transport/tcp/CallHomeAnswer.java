package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The frontend's view of an answer from an endpoint other than generate (a worker's KV indexer
 * query, say): the stream is read whole, then decoded off the event loop, since one answer can be a
 * tree dump of several megabytes. {@link #items()} gives the data of every item, in order, once the
 * worker has sent {@code complete_final}; it fails with {@link WorkerStreamException} if the stream
 * ends without {@code complete_final}, or if the answer grows past the largest message the plane
 * takes. The items are the endpoint's values as they are (not annotated as a generate stream's
 * are): an endpoint says it failed in its own terms, such as a query's {@code Error}.
 *
 * <p>The stream's end is the worker's sentinel (or mux {@code End}) or the socket closing,
 * whichever comes first; the frontend lets the stream go then, as for a generate stream.
 */
final class CallHomeAnswer implements CallHomeReader {
  private final Context context;
  private final ResponseLink link;
  private final WorkerEndpoint worker;
  private final int maxBytes;
  private final List<Buffer> bodies = new ArrayList<>();
  private final Promise<List<JsonNode>> items = Promise.promise();
  private long bytes;
  private boolean ended;

  CallHomeAnswer(Context context, ResponseLink link, WorkerEndpoint worker, int maxBytes) {
    this.context = context;
    this.link = link;
    this.worker = worker;
    this.maxBytes = maxBytes;
  }

  /**
   * The items of the answer to {@code call}, given up at {@code timeout}: before the stream opens
   * the call fails as an unreachable worker, after it the worker is told to stop and the answer
   * fails as a broken stream.
   */
  static Future<List<JsonNode>> within(
      Vertx vertx, PendingCall<CallHomeAnswer> call, Duration timeout) {
    WorkerEndpoint endpoint = call.worker();
    long timer =
        vertx.setTimer(
            Math.max(1, timeout.toMillis()),
            id -> {
              String late = "no answer within " + timeout.toMillis() + " ms";
              call.fail(late, null);
              call.future()
                  .onSuccess(
                      answer ->
                          answer.fail(
                              WorkerStreamException.disconnected(
                                  "worker " + endpoint.workerId() + " sent " + late, null)));
            });
    Future<List<JsonNode>> answer = call.future().compose(CallHomeAnswer::items);
    answer.onComplete(done -> vertx.cancelTimer(timer));
    return answer;
  }

  /** The answer's items; completes on a worker thread or the socket's event loop. */
  Future<List<JsonNode>> items() {
    return items.future();
  }

  @Override
  public void onEnd() {
    endOfStream();
  }

  @Override
  public void onItem(Buffer body) {
    if (ended) {
      return;
    }
    bytes += body.length();
    if (bytes > maxBytes) {
      abort(
          WorkerStreamException.disconnected(
              "the answer of worker "
                  + worker.workerId()
                  + " is larger than "
                  + maxBytes
                  + " bytes (DYN_TCP_MAX_MESSAGE_SIZE)",
              null));
      return;
    }
    bodies.add(body);
  }

  @Override
  public void onSocketClosed() {
    endOfStream();
  }

  @Override
  public void onSocketEnd() {
    endOfStream();
  }

  @Override
  public void onProtocolError(String reason) {
    abort(
        WorkerStreamException.disconnected(
            "worker " + worker.workerId() + " sent a malformed answer: " + reason, null));
  }

  @Override
  public void cancel() {
    fail(
        new RequestCancelledException(
            "the question to worker " + worker.workerId() + " was cancelled"));
  }

  /** Gives up on the answer (a timeout, say): the worker is told to stop. No-op once ended. */
  void fail(Throwable failure) {
    onContext(() -> abort(failure));
  }

  private void abort(Throwable failure) {
    if (ended) {
      return;
    }
    ended = true;
    bodies.clear();
    link.kill();
    items.tryFail(failure);
  }

  private void endOfStream() {
    if (ended) {
      return;
    }
    ended = true;
    link.close();
    List<Buffer> read = List.copyOf(bodies);
    bodies.clear();
    context.<List<JsonNode>>executeBlocking(() -> decode(read), false).onComplete(items);
  }

  /** The items' data; throws {@link WorkerStreamException} for an error or a broken stream. */
  private List<JsonNode> decode(List<Buffer> read) {
    List<JsonNode> data = new ArrayList<>(read.size());
    for (Buffer body : read) {
      ResponseEnvelope<JsonNode> envelope;
      try {
        envelope = Payloads.read(body, ResponseEnvelope.OF_JSON, worker.codec(), "answer item");
      } catch (TcpCodecException e) {
        throw WorkerStreamException.disconnected(
            "worker " + worker.workerId() + " sent a malformed answer: " + e.getMessage(), e);
      }
      if (envelope.data() != null) {
        data.add(envelope.data());
      }
      if (envelope.completeFinal()) {
        return data;
      }
    }
    throw WorkerStreamException.disconnected(
        "the answer of worker " + worker.workerId() + " ended before complete_final", null);
  }

  private void onContext(Runnable action) {
    if (Vertx.currentContext() == context) {
      action.run();
    } else {
      context.runOnContext(v -> action.run());
    }
  }
}
