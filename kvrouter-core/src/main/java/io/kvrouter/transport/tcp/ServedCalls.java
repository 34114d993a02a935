package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InferenceEngine;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.transport.JsonEndpoint;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetClient;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a worker serves, by path ({@code generate}, a KV query endpoint), and the start of each call
 * it accepts: whatever carried the request (a TCP request frame, a NATS message), the envelope is
 * the same TwoPart message and the response goes back over a call-home connection. A request is
 * checked completely (path, envelope, control header, body) before it is accepted.
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
  private final NetClient callHomeClient;
  private final TcpConfig config;
  private final CallHomeFrames frames;

  ServedCalls(
      Vertx vertx,
      Map<String, InferenceEngine> engines,
      Map<String, JsonEndpoint> endpoints,
      NetClient callHomeClient,
      TcpConfig config) {
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
      InboundRequest request = InboundRequest.parse(payload, config.maxMessageSize());
      PreprocessedRequest generate = engine != null ? request.request() : null;
      return new Accepted(request, engine, generate, endpoint);
    } catch (TcpCodecException e) {
      throw new Refused(Ack.unavailable("invalid request: " + e.getMessage()));
    }
  }

  /** Calls the frontend back and runs the call, streaming its outputs or its answer. */
  void start(Accepted call) {
    WorkerCallHome callHome = new WorkerCallHome(vertx, callHomeClient, call.request(), frames);
    if (call.engine() != null) {
      new ResponsePublisher(call.engine(), call.generate(), call.request(), frames, callHome)
          .start();
    } else {
      byte[] question;
      try {
        question = call.request().questionJson();
      } catch (TcpCodecException e) {
        callHome.connect(new Refusal(callHome, frames, e.getMessage()));
        return;
      }
      new AnswerPublisher(call.endpoint(), question, call.request().codec(), frames, callHome)
          .start();
    }
  }

  /** Answers a call whose question cannot be read with an error prologue. */
  private record Refusal(WorkerCallHome callHome, CallHomeFrames frames, String reason)
      implements WorkerCallHome.Listener {
    @Override
    public void connected() {
      callHome.write(frames.prologue(new StreamPrologue(reason)));
      callHome.finish();
    }

    @Override
    public void cancelled() {}

    @Override
    public void drained() {}
  }
}
