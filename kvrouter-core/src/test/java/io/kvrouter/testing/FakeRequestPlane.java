package io.kvrouter.testing;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.RequestCancelledException;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerStreamException;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * A {@link RequestPlane} whose workers are scripted per worker id (see {@link Behaviour}); a worker
 * that answers sends its id's number as the only token. Records every send, probe and cancel.
 */
public final class FakeRequestPlane implements RequestPlane {

  public enum Behaviour {
    ANSWER,
    UNREACHABLE,
    /** Up, but refuses every request (e.g. overloaded). */
    REFUSE,
    /** Up, but refuses every request as one that can never fit in its KV cache. */
    NEVER_FITS,
    /** Its stream breaks before any output (the worker died). */
    DIE_BEFORE_OUTPUT,
    /** Reports an error for the request before any output. */
    REPORT_ERROR,
    /** Its stream breaks after one output. */
    DIE_AFTER_OUTPUT,
    /** Its stream stays open until the test drives it through {@link #held}. */
    HOLD,
    /**
     * Like {@link #HOLD}, but a cancel is only recorded: the stream ends when the test ends it (a
     * worker whose stream broke before the cancel reached it).
     */
    HOLD_THROUGH_CANCEL,
    /**
     * Acknowledges a request only when the test calls {@link #acknowledge}; its stream is then held
     * as {@link #HOLD}'s.
     */
    ACK_WHEN_TOLD,
    /**
     * Answers probes, but every request fails as unreachable: a worker that acks and never calls
     * home, or hangs again as soon as it is back.
     */
    FAIL_REQUESTS
  }

  private final Map<String, Behaviour> behaviours = new ConcurrentHashMap<>();
  public final List<String> sends = new CopyOnWriteArrayList<>();
  public final List<String> probes = new CopyOnWriteArrayList<>();
  public final List<String> cancels = new CopyOnWriteArrayList<>();

  /** {@code workerId/path} of every question asked. */
  public final List<String> asks = new CopyOnWriteArrayList<>();

  private final Map<String, Function<byte[], List<JsonNode>>> endpoints = new ConcurrentHashMap<>();

  /** The worker each request was last sent to, by request id. */
  public final Map<String, String> workerOf = new ConcurrentHashMap<>();

  /** Every request sent, in the order of {@link #sends}, routing hints included. */
  public final List<PreprocessedRequest> sentRequests = new CopyOnWriteArrayList<>();

  /** The request as each request id was sent, routing hints included. */
  public final Map<String, PreprocessedRequest> requestOf = new ConcurrentHashMap<>();

  /** Streams of {@link Behaviour#HOLD} workers, by request id, once subscribed. */
  public final Map<String, Held> held = new ConcurrentHashMap<>();

  /** Sends of {@link Behaviour#ACK_WHEN_TOLD} workers not acknowledged yet, by request id. */
  private final Map<String, Promise<ResponseStream>> unacknowledged = new ConcurrentHashMap<>();

  /** The ids of {@link #held} streams in the order they were subscribed, for a test to take. */
  public final BlockingQueue<String> heldInOrder = new LinkedBlockingQueue<>();

  public FakeRequestPlane set(String workerId, Behaviour behaviour) {
    behaviours.put(workerId, behaviour);
    return this;
  }

  private Behaviour behaviour(String workerId) {
    return behaviours.getOrDefault(workerId, Behaviour.ANSWER);
  }

  @Override
  public Future<ResponseStream> send(
      WorkerEndpoint worker, String requestId, PreprocessedRequest request) {
    sends.add(worker.workerId());
    workerOf.put(requestId, worker.workerId());
    requestOf.put(requestId, request);
    sentRequests.add(request);
    Behaviour behaviour = behaviour(worker.workerId());
    if (behaviour == Behaviour.UNREACHABLE || behaviour == Behaviour.FAIL_REQUESTS) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(worker.workerId(), "connection refused", null));
    }
    if (behaviour == Behaviour.REFUSE) {
      return Future.failedFuture(
          WorkerUnavailableException.refused(worker.workerId(), "Server overloaded"));
    }
    if (behaviour == Behaviour.NEVER_FITS) {
      return Future.failedFuture(
          WorkerUnavailableException.neverFits(
              worker.workerId(), "it needs 3 tokens of KV cache, the worker holds 2"));
    }
    if (behaviour == Behaviour.ACK_WHEN_TOLD) {
      Promise<ResponseStream> ack = Promise.promise();
      unacknowledged.put(requestId, ack);
      return ack.future();
    }
    return Future.succeededFuture(new ScriptedStream(requestId, worker.workerId(), behaviour));
  }

  /** Acknowledges the send of {@code requestId} to an {@link Behaviour#ACK_WHEN_TOLD} worker. */
  public void acknowledge(String requestId) {
    Promise<ResponseStream> ack = unacknowledged.remove(requestId);
    if (ack == null) {
      throw new IllegalStateException("no send of " + requestId + " waits for its ack");
    }
    ack.complete(new ScriptedStream(requestId, workerOf.get(requestId), Behaviour.HOLD));
  }

  /** Makes every worker answer questions to {@code path} with what {@code endpoint} returns. */
  public FakeRequestPlane answer(String path, Function<byte[], List<JsonNode>> endpoint) {
    endpoints.put(path, endpoint);
    return this;
  }

  /**
   * Answers from the endpoint scripted for the path; a worker without one refuses the question, as
   * a real one acks an unknown path.
   */
  @Override
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout) {
    asks.add(endpoint.workerId() + "/" + endpoint.path());
    if (behaviour(endpoint.workerId()) == Behaviour.UNREACHABLE) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(endpoint.workerId(), "connection refused", null));
    }
    Function<byte[], List<JsonNode>> answering = endpoints.get(endpoint.path());
    if (answering == null) {
      return Future.failedFuture(
          WorkerUnavailableException.refused(
              endpoint.workerId(), "Server unavailable: unknown endpoint " + endpoint.path()));
    }
    return Future.succeededFuture(answering.apply(body));
  }

  @Override
  public Future<Void> start() {
    return Future.succeededFuture();
  }

  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    probes.add(worker.workerId());
    return behaviour(worker.workerId()) == Behaviour.UNREACHABLE
        ? Future.failedFuture(
            WorkerUnavailableException.unreachable(worker.workerId(), "refused", null))
        : Future.succeededFuture();
  }

  @Override
  public Future<Void> close() {
    return Future.succeededFuture();
  }

  /** A held stream: the test sends its outputs and ends it. */
  public static final class Held {
    private final ScriptedStream stream;
    private final ResponseStream.Subscriber subscriber;
    private final int token;

    Held(ScriptedStream stream, ResponseStream.Subscriber subscriber, int token) {
      this.stream = stream;
      this.subscriber = subscriber;
      this.token = token;
    }

    /** Whether its subscriber has paused it (and not resumed it since). */
    public boolean paused() {
      return stream.paused;
    }

    /** The worker's next token. */
    public void output() {
      subscriber.onOutput(EngineOutput.tokens(token));
    }

    public void complete() {
      answer(token);
    }

    /** Sends {@code ids} as one output of the worker. */
    public void send(int... ids) {
      subscriber.onOutput(EngineOutput.tokens(ids));
    }

    /** Sends {@code output} as it is. */
    public void send(EngineOutput output) {
      subscriber.onOutput(output);
    }

    /** The worker's stream ends with {@code error}, unless it has ended already. */
    public void fail(Throwable error) {
      if (stream.end()) {
        subscriber.onError(error);
      }
    }

    /** Sends {@code ids} as the worker's last output, ending with end-of-sequence. */
    public void answer(int... ids) {
      if (stream.end()) {
        subscriber.onOutput(EngineOutput.finished(FinishReason.EOS, ids));
        subscriber.onComplete();
      }
    }
  }

  /** Worker ids are numbers in these tests' answers: {@code w7} answers token 7. */
  private final class ScriptedStream implements ResponseStream {
    private final String requestId;
    private final String workerId;
    private final Behaviour behaviour;
    private volatile Subscriber subscriber;
    private volatile boolean paused;
    private volatile boolean cancelledEarly;
    private final AtomicBoolean ended = new AtomicBoolean();

    ScriptedStream(String requestId, String workerId, Behaviour behaviour) {
      this.requestId = requestId;
      this.workerId = workerId;
      this.behaviour = behaviour;
    }

    /** Marks the stream ended; false if it had ended already (a stream ends once). */
    boolean end() {
      return ended.compareAndSet(false, true);
    }

    @Override
    public void subscribe(Subscriber subscriber) {
      this.subscriber = subscriber;
      if (cancelledEarly) {
        cancel();
        return;
      }
      int token = Integer.parseInt(workerId.substring(1));
      if (behaviour == Behaviour.HOLD || behaviour == Behaviour.HOLD_THROUGH_CANCEL) {
        held.put(requestId, new Held(this, subscriber, token));
        heldInOrder.add(requestId);
        return;
      }
      end();
      switch (behaviour) {
        case DIE_BEFORE_OUTPUT ->
            subscriber.onError(WorkerStreamException.disconnected("died", null));
        case REPORT_ERROR ->
            subscriber.onError(WorkerStreamException.fromEngine("w1", "prompt too long"));
        case DIE_AFTER_OUTPUT -> {
          subscriber.onOutput(EngineOutput.tokens(token));
          subscriber.onError(WorkerStreamException.disconnected("died mid-stream", null));
        }
        default -> {
          subscriber.onOutput(EngineOutput.finished(FinishReason.EOS, token));
          subscriber.onComplete();
        }
      }
    }

    @Override
    public void pause() {
      paused = true;
    }

    @Override
    public void resume() {
      paused = false;
    }

    /** Ends the stream as cancelled, as a worker does, unless it ended already. */
    @Override
    public void cancel() {
      if (subscriber == null) {
        cancelledEarly = true;
        return;
      }
      cancels.add(workerId);
      if (behaviour != Behaviour.HOLD_THROUGH_CANCEL && end()) {
        subscriber.onError(new RequestCancelledException("cancelled"));
      }
    }
  }
}
