package io.kvrouter.transport.tcp;

import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a worker serves, by path ({@code generate}, a KV query endpoint), and the start of each call
 * it accepts: whatever carried the request (a TCP request frame, a NATS message), the envelope is
 * the same TwoPart message and the response goes back over a call-home connection or a {@code
 * tcp_response_mux_v1} stream. A request is checked completely (path, envelope, control header,
 * body, response transport) before it is accepted.
 */
final class ServedCalls {

  /** A request that passed every check, ready to start. */
  record Accepted(
      InboundRequest request,
      InferenceEngine engine,
      PreprocessedRequest generate,
      JsonEndpoint endpoint) {}

  /** A request this worker does not serve, and the acknowledgement that says why. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient Ack ack;

    Refused(Ack ack) {
      super(ack.rejection(), null, false, false);
      this.ack = ack;
    }

    Ack ack() {
      return ack;
    }
  }

  private final Vertx vertx;
  private final Map<String, InferenceEngine> engines;
  private final Map<String, JsonEndpoint> endpoints;
  private final PlaneClient callHomeClient;
  private final MuxClientPool muxPool;
  private final Set<ResponseStreamKind> accepted;
  private final TcpConfig config;
  private final CallHomeFrames frames;
  private final AtomicInteger callHomes = new AtomicInteger();

  /**
   * @param muxPool the worker's {@code tcp_response_mux_v1} connections
   * @param accepted the response transports the worker answers on; a request asking for another is
   *     refused in the words of the release that speaks only these
   */
  ServedCalls(
      Vertx vertx,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      PlaneClient callHomeClient,
      MuxClientPool muxPool,
      Set<ResponseStreamKind> accepted,
      TcpConfig config) {
    if (accepted.isEmpty()) {
      throw new IllegalArgumentException("a worker must accept at least one response transport");
    }
    Map<String, InferenceEngine> byPath = Map.copyOf(engines);
    Map<String, JsonEndpoint> answering = Map.copyOf(endpoints);
    for (String path : answering.keySet()) {
      if (byPath.containsKey(path)) {
        throw new IllegalArgumentException("path " + path + " is both an engine and an endpoint");
      }
    }
    this.vertx = vertx;
    this.engines = byPath;
    this.endpoints = answering;
    this.callHomeClient = callHomeClient;
    this.muxPool = muxPool;
    this.accepted = Set.copyOf(accepted);
    this.config = config;
    this.frames = new CallHomeFrames(config.maxMessageSize());
  }

  /** The paths served: every engine's and every endpoint's. */
  Set<String> paths() {
    Set<String> all = new TreeSet<>(engines.keySet());
    all.addAll(endpoints.keySet());
    return all;
  }

  /** Checks the request {@code payload} sent to {@code path}. */
  Accepted accept(String path, Buffer payload) throws Refused {
    if (path == null) {
      throw new Refused(Ack.rejected("Invalid endpoint path"));
    }
    InferenceEngine engine = engines.get(path);
    JsonEndpoint endpoint = endpoints.get(path);
    if (engine == null && endpoint == null) {
      throw new Refused(Ack.unavailable("unknown endpoint " + path));
    }
    try {
      InboundRequest request = InboundRequest.parse(payload, config.maxMessageSize(), accepted);
      PreprocessedRequest generate = engine != null ? request.request() : null;
      return new Accepted(request, engine, generate, endpoint);
    } catch (TcpCodecException e) {
      throw new Refused(Ack.unavailable("invalid request: " + e.getMessage()));
    }
  }

  /** How many call-home connections (one per response) the worker has opened. */
  int callHomesOpened() {
    return callHomes.get();
  }

  /**
   * Opens the call's response stream (a call-home, or a stream on the pooled mux connections) and
   * runs the call, streaming its outputs or its answer.
   */
  void start(Accepted call) {
    InboundRequest request = call.request();
    ResponseSink sink;
    if (request.mux() != null) {
      sink = new MuxResponseSink(muxPool, request.mux(), request.codec());
    } else {
      callHomes.incrementAndGet();
      sink = new WorkerCallHome(vertx, callHomeClient, request, frames);
    }
    if (call.engine() != null) {
      new ResponsePublisher(call.engine(), call.generate(), request, sink).start();
    } else {
      byte[] question;
      try {
        question = request.questionJson();
      } catch (TcpCodecException e) {
        sink.connect(new Refusal(sink, e.getMessage()));
        return;
      }
      new AnswerPublisher(call.endpoint(), question, request.codec(), sink, config.maxMessageSize())
          .start();
    }
  }

  /** Answers a call whose question cannot be read with an error prologue. */
  private record Refusal(ResponseSink callHome, String reason) implements ResponseSink.Listener {
    @Override
    public void connected() {
      callHome.prologue(new StreamPrologue(reason));
    }

    @Override
    public void cancelled() {}

    @Override
    public void drained() {}
  }
}
