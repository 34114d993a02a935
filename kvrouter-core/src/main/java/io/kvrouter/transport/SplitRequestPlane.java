package io.kvrouter.transport;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.List;

/**
 * One request plane over two: plain engines' HTTP servers ({@link WorkerEndpoint#isHttp()}) go to
 * {@code http}, Dynamo workers to {@code dynamo} (TCP or NATS), so that one router, and one KV
 * index, serves a fleet of both.
 */
public final class SplitRequestPlane implements RequestPlane {
  private final RequestPlane dynamo;
  private final RequestPlane http;

  public SplitRequestPlane(RequestPlane dynamo, RequestPlane http) {
    this.dynamo = dynamo;
    this.http = http;
  }

  private RequestPlane of(WorkerEndpoint worker) {
    return worker.isHttp() ? http : dynamo;
  }

  @Override
  public Future<Void> start() {
    return Future.all(dynamo.start(), http.start()).mapEmpty();
  }

  @Override
  public Future<ResponseStream> send(
      WorkerEndpoint worker, String requestId, PreprocessedRequest request) {
    return of(worker).send(worker, requestId, request);
  }

  @Override
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout) {
    return of(endpoint).ask(endpoint, requestId, body, timeout);
  }

  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    return of(worker).probe(worker);
  }

  @Override
  public Future<Void> close() {
    return Future.join(dynamo.close(), http.close()).mapEmpty();
  }
}
