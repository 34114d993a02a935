package io.kvrouter.app;

import io.kvrouter.discovery.EventTransport;
import io.kvrouter.events.zmq.DynamoZmqPublisher;
import io.kvrouter.protocol.WorkerLoadReport;
import io.kvrouter.protocol.dynamo.DynamoMsgpackCodec;
import io.kvrouter.protocol.dynamo.DynamoRouterEvent;
import io.kvrouter.protocol.dynamo.EventEnvelope;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Dynamo's ZMQ event plane, as a Dynamo worker publishes on it: two publishers, each its own PUB
 * socket, publisher id and sequence, one for topic {@code kv-events} (each event as a one-event
 * msgpack batch, Dynamo's latest form) and one for topic {@code kv_metrics} (msgpack {@code
 * ActiveLoad}). The publisher ids are fresh random ones at every start, as Dynamo's latest are,
 * below 2^53 so they survive a JSON number.
 */
final class ZmqDynamoSink implements DynamoEventSink {
  private final DynamoZmqPublisher events;
  private final DynamoZmqPublisher loads;
  private final String advertisedHost;

  private ZmqDynamoSink(DynamoZmqPublisher events, DynamoZmqPublisher loads, String host) {
    this.events = events;
    this.loads = loads;
    this.advertisedHost = host;
  }

  /**
   * Binds both publishers on {@code bindHost} ({@code *} for every interface; port 0 picks a free
   * one); {@code advertisedHost} is how routers reach them.
   */
  static ZmqDynamoSink start(
      String bindHost, int eventsPort, int loadsPort, String advertisedHost) {
    SecureRandom random = new SecureRandom();
    DynamoZmqPublisher events =
        DynamoZmqPublisher.start(
            DynamoZmqPublisher.Options.of(
                    bindHost,
                    DynamoMsgpackCodec.KV_EVENTS_TOPIC,
                    EventEnvelope.randomPublisherId(random))
                .withPort(eventsPort));
    try {
      DynamoZmqPublisher loads =
          DynamoZmqPublisher.start(
              DynamoZmqPublisher.Options.of(
                      bindHost,
                      DynamoMsgpackCodec.KV_METRICS_TOPIC,
                      EventEnvelope.randomPublisherId(random))
                  .withPort(loadsPort));
      return new ZmqDynamoSink(events, loads, advertisedHost);
    } catch (RuntimeException e) {
      events.close();
      throw e;
    }
  }

  @Override
  public void publishEvent(DynamoRouterEvent event) {
    events.publish(DynamoMsgpackCodec.encodeBatch(List.of(event)));
  }

  @Override
  public boolean publishLoad(WorkerLoadReport load) {
    loads.publish(DynamoMsgpackCodec.encodeLoad(load));
    return true;
  }

  /** One publisher carries every rank's events. */
  @Override
  public OptionalLong publisherId(int dpRank) {
    return OptionalLong.of(events.publisherId());
  }

  @Override
  public Optional<EventTransport> eventChannel() {
    return Optional.of(new EventTransport.Zmq("tcp://" + advertisedHost + ":" + events.port()));
  }

  @Override
  public Optional<LoadChannel> loadChannel() {
    return Optional.of(
        new LoadChannel(
            loads.publisherId(),
            new EventTransport.Zmq("tcp://" + advertisedHost + ":" + loads.port())));
  }

  @Override
  public String describe() {
    return "tcp://"
        + advertisedHost
        + ":"
        + events.port()
        + " (dynamo), load tcp://"
        + advertisedHost
        + ":"
        + loads.port();
  }

  @Override
  public void close() {
    loads.close();
    events.close();
  }
}
