package io.kvrouter.routing;

import io.kvrouter.protocol.dynamo.ActiveSequenceEvent;
import java.util.function.Consumer;

/**
 * The link over which a KV router shares its books of requests in flight with the other routers of
 * a fleet ({@code --router-replica-sync}): its changes go out through {@link #publish}, and the
 * others' come in through the inbox given to {@link #start}. The transport is the implementer's
 * (the app's NATS link); the bookkeeping is {@link
 * io.kvrouter.routing.schedule.ReplicatedActiveSequences}'s.
 */
public interface ReplicaSync {

  /** This router's id on the wire, distinct from every other router's of the fleet. */
  long routerId();

  /** Sends one change of this router's books to the others. Never blocks; may drop. */
  void publish(ActiveSequenceEvent event);

  /** Starts handing the other routers' changes to {@code inbox}, on any thread. */
  void start(Consumer<ActiveSequenceEvent> inbox);
}
