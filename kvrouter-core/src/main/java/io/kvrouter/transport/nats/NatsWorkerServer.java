package io.kvrouter.transport.nats;

import io.kvrouter.common.FaultLog;
import io.kvrouter.transport.tcp.CallHomeServer;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Message;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of Dynamo's NATS request plane: one subscription per served endpoint, on {@code
 * {service}.{endpoint}-{instance:x}} ({@link NatsRequestSubjects}). As Dynamo's {@code
 * PushEndpoint} does, each message is answered at once with an empty reply, then its payload (the
 * TwoPart envelope) is served: the response goes back over a TCP call-home connection ({@link
 * CallHomeServer}). A message that is not a request this worker serves (a health probe's empty one,
 * a malformed envelope) has had its reply and is dropped; the frontend then hears nothing more, as
 * from a Dynamo worker.
 */
public final class NatsWorkerServer {
  private static final Logger LOG = LoggerFactory.getLogger(NatsWorkerServer.class);
  private static final FaultLog FAULTS = FaultLog.of(LOG, "requests refused on NATS");

  private final Connection connection;
  private final Dispatcher dispatcher;
  private final CallHomeServer server;
  private final Map<String, String> subjects;

  private NatsWorkerServer(
      Connection connection,
      Dispatcher dispatcher,
      CallHomeServer server,
      Map<String, String> subjects) {
    this.connection = connection;
    this.dispatcher = dispatcher;
    this.server = server;
    this.subjects = subjects;
  }

  /**
   * Subscribes every path of {@code server} (its endpoint names) for the worker instance {@code
   * instanceId} of {@code namespace}/{@code component}, and waits until the NATS server has the
   * subscriptions, so that a frontend's request right after does not find no responders.
   *
   * @throws IllegalStateException if the NATS server did not confirm the subscriptions in time
   */
  public static NatsWorkerServer start(
      Connection connection,
      String namespace,
      String component,
      long instanceId,
      CallHomeServer server) {
    Map<String, String> subjects = new LinkedHashMap<>();
    for (String path : server.paths()) {
      subjects.put(NatsRequestSubjects.of(namespace, component, path, instanceId), path);
    }
    Dispatcher dispatcher =
        connection.createDispatcher(message -> onMessage(connection, server, subjects, message));
    subjects.keySet().forEach(dispatcher::subscribe);
    try {
      connection.flush(Duration.ofSeconds(10));
    } catch (Exception e) {
      connection.closeDispatcher(dispatcher);
      throw new IllegalStateException(
          "the NATS server did not confirm the request subscriptions: " + e.getMessage(), e);
    }
    return new NatsWorkerServer(connection, dispatcher, server, Map.copyOf(subjects));
  }

  /** The subject of each served endpoint, by endpoint name. */
  public Map<String, String> subjectsByEndpoint() {
    Map<String, String> byPath = new LinkedHashMap<>();
    subjects.forEach((subject, path) -> byPath.put(path, subject));
    return byPath;
  }

  private static void onMessage(
      Connection connection, CallHomeServer server, Map<String, String> subjects, Message message) {
    if (message.getReplyTo() != null) {
      connection.publish(message.getReplyTo(), new byte[0]);
    }
    byte[] envelope = message.getData();
    if (envelope == null || envelope.length == 0) {
      return; // a health probe: the reply was the answer
    }
    String refused = server.serve(subjects.get(message.getSubject()), envelope);
    if (refused != null) {
      FAULTS.fault(message.getSubject() + ": " + refused);
    }
  }

  /** Unsubscribes and closes the call-home client; streams still running end. */
  public Future<Void> close() {
    connection.closeDispatcher(dispatcher);
    return server.close();
  }
}
