package io.kvrouter.transport.nats;

import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest;
import io.kvrouter.protocol.ResponseStream;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.transport.RequestIdHeaders;
import io.kvrouter.transport.RequestPlane;
import io.kvrouter.transport.tcp.CallHomeRequests;
import io.nats.client.Connection;
import io.nats.client.JetStreamStatusException;
import io.nats.client.Message;
import io.nats.client.impl.Headers;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The frontend side of Dynamo's NATS request plane ({@code DYN_REQUEST_PLANE=nats}): each request's
 * TwoPart envelope goes to the worker's subject ({@link NatsRequestSubjects}) as a NATS request,
 * and its response stream comes back over the TCP call-home path, exactly as on the TCP plane
 * ({@link CallHomeRequests}). Read in {@code ai-dynamo/dynamo}: {@code
 * lib/runtime/src/pipeline/network/egress/nats_client.rs} @1a40b9a6 (client), {@code
 * ingress/nats_server.rs} and {@code ingress/push_endpoint.rs} (server), {@code
 * egress/addressed_router.rs} (envelope); docs/interop.md §10.8.
 *
 * <pre>
 * NATS request   subject  dynamo_backend.generate-7587
 *                headers  request-id: {id}, x-request-id: {client's id} (RequestIdHeaders)
 *                payload  TwoPart envelope, byte for byte as in a TCP request frame's payload:
 *                         u64 BE header length | u64 BE body length | u64 BE checksum (0, as
 *                         Dynamo's release builds write it) | header: RequestControlMessage
 *                         JSON | body: the request in the worker's payload codec (JSON or msgpack)
 *                e.g. golden/request-plane/msgpack_request_envelope.hex:
 *                         00 00 00 00 00 00 01 02   header length 258
 *                         00 00 00 00 00 00 02 33   body length 563
 *                         00 00 00 00 00 00 00 00   checksum
 *                         {"id":"req-42","request_type":"single_in","response_type":"many_out",
 *                          "payload_codec":"msgpack","connection_info":{"transport":"tcp_server",
 *                          "info":"{\"address\":\"127.0.0.1:40001\",\"subject\":\"subj-7\",
 *                          \"context\":\"req-42\",\"stream_type\":\"response\"}"}}
 *                         8a a5 6d 6f 64 65 6c aa 6d 6f 63 6b 2d ...   map of 10: "model" "mock-..."
 * NATS reply     empty    sent by the worker as soon as it takes the message, before it reads it
 * call home      TCP      handshake, prologue, items, complete_final, sentinel (as on TCP)
 * </pre>
 *
 * <p>The reply is only the acknowledgement: a worker replies before it decodes the envelope, so a
 * bad request shows up as a worker that never calls back. NATS answers a request on a subject
 * nobody listens to with "no responders" at once: the worker counts as unreachable without waiting
 * for a timeout. No reply within {@code --tcp-request-timeout} counts as unreachable too. An
 * envelope larger than the server's {@code max_payload} is refused before sending, as Dynamo's
 * client does, with {@link InvalidRequestException}.
 *
 * <p>Health probe: an empty message on the worker's subject, which a live worker replies to (a
 * Dynamo worker replies, then logs that it could not decode it, as it does for the TCP plane's
 * probe frame).
 */
final class NatsRequestPlane implements RequestPlane {
  private static final Logger LOG = LoggerFactory.getLogger(NatsRequestPlane.class);

  /** How long {@link #start()} waits for the first NATS connection. */
  static final Duration CONNECT_WAIT = Duration.ofSeconds(10);

  private final Vertx vertx;
  private final TcpConfig config;
  private final Supplier<Connection> nats;
  private final CallHomeRequests callHome;
  private final String callHomeHost;
  private volatile boolean closed;

  NatsRequestPlane(Vertx vertx, TcpConfig config, Supplier<Connection> nats) {
    this.vertx = vertx;
    this.config = config;
    this.nats = nats;
    this.callHome = CallHomeRequests.start(vertx, config);
    this.callHomeHost = CallHomeHost.of(config);
  }

  /**
   * Completes once the call-home listener is bound and the NATS connection is up, or {@link
   * #CONNECT_WAIT} after the listener is bound if NATS is not: the router then starts anyway,
   * requests failing as unreachable until the connection comes up (it is retried forever).
   */
  @Override
  public Future<Void> start() {
    return callHome.ready().compose(bound -> connected());
  }

  private Future<Void> connected() {
    if (nats.get() != null) {
      return Future.succeededFuture();
    }
    Promise<Void> up = Promise.promise();
    long deadline = System.nanoTime() + CONNECT_WAIT.toNanos();
    vertx.setPeriodic(
        20,
        timer -> {
          if (nats.get() != null) {
            vertx.cancelTimer(timer);
            up.tryComplete();
          } else if (System.nanoTime() - deadline > 0) {
            vertx.cancelTimer(timer);
            LOG.warn(
                "not connected to NATS after {} s; serving anyway, workers unreachable until it is",
                CONNECT_WAIT.toSeconds());
            up.tryComplete();
          }
        });
    return up.future();
  }

  @Override
  public Future<ResponseStream> send(
      WorkerEndpoint worker, String requestId, PreprocessedRequest request) {
    return callHome.send(
        worker,
        requestId,
        request,
        callHomeHost,
        (w, id, envelope) -> request(w, RequestIdHeaders.forDynamo(id, request), envelope));
  }

  @Override
  public Future<List<JsonNode>> ask(
      WorkerEndpoint endpoint, String requestId, byte[] body, Duration timeout) {
    return callHome.ask(endpoint, requestId, body, timeout, callHomeHost, this::deliver);
  }

  @Override
  public Future<Void> probe(WorkerEndpoint worker) {
    return request(worker, null, new byte[0]);
  }

  @Override
  public Future<Void> close() {
    closed = true;
    return callHome.close();
  }

  private Future<Void> deliver(WorkerEndpoint worker, String requestId, byte[] envelope) {
    return request(worker, Map.of(RequestIdHeaders.REQUEST_ID, requestId), envelope);
  }

  /**
   * One NATS request to the worker's subject with {@code ids} as its headers (none when null);
   * succeeds on any reply.
   */
  private Future<Void> request(WorkerEndpoint worker, Map<String, String> ids, byte[] payload) {
    String subject = worker.natsSubject();
    if (subject == null) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(
              worker.workerId(), "no NATS subject: give instance= in --worker", null));
    }
    Connection connection = nats.get();
    if (closed || connection == null || connection.getStatus() != Connection.Status.CONNECTED) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(
              worker.workerId(), closed ? "request plane closed" : "not connected to NATS", null));
    }
    long maxPayload = connection.getMaxPayload();
    if (maxPayload > 0 && payload.length > maxPayload) {
      return Future.failedFuture(
          new InvalidRequestException(
              "The request's "
                  + payload.length
                  + " bytes exceed the NATS server's max_payload of "
                  + maxPayload
                  + " bytes",
              null));
    }
    Headers headers = null;
    if (ids != null) {
      headers = new Headers();
      for (Map.Entry<String, String> id : ids.entrySet()) {
        headers.add(id.getKey(), id.getValue());
      }
    }
    Duration timeout = config.requestTimeout();
    Promise<Void> replied = Promise.promise();
    Context caller = vertx.getOrCreateContext();
    CompletableFuture<Message> reply;
    try {
      reply = connection.requestWithTimeout(subject, headers, payload, timeout);
    } catch (RuntimeException e) {
      return Future.failedFuture(
          WorkerUnavailableException.unreachable(
              worker.workerId(), "NATS request to " + subject + " failed: " + e.getMessage(), e));
    }
    // jnats completes on its own threads: the outcome goes back to the caller's context
    reply.whenComplete(
        (message, failure) ->
            caller.runOnContext(
                v -> {
                  if (failure == null) {
                    replied.tryComplete();
                  } else {
                    replied.tryFail(unreachable(worker, subject, timeout, failure));
                  }
                }));
    return replied.future();
  }

  private static WorkerUnavailableException unreachable(
      WorkerEndpoint worker, String subject, Duration timeout, Throwable failure) {
    Throwable cause =
        failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause()
            : failure;
    String reason;
    if (cause instanceof JetStreamStatusException
        || String.valueOf(cause.getMessage()).contains("503")) {
      reason = "no worker listens on " + subject + " (NATS: no responders)";
    } else if (cause instanceof TimeoutException) {
      reason = "no reply on " + subject + " within " + timeout.toMillis() + " ms";
    } else if (cause instanceof CancellationException) {
      reason = "NATS request to " + subject + " cancelled: the connection is closing";
    } else {
      reason = "NATS request to " + subject + " failed: " + cause;
    }
    return WorkerUnavailableException.unreachable(worker.workerId(), reason, cause);
  }
}
