package io.kvrouter.events.zmq;

import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import java.util.ArrayList;
import java.util.List;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * A vLLM publisher's two sockets driven step by step from the test's thread: an XPUB (so the test
 * can wait for the subscriber to have connected) and a ROUTER whose replay requests the test reads
 * and answers as it pleases: late, in part or never. A receive gives up after 20 s, so a subscriber
 * that never asks fails the test instead of hanging it.
 */
final class ScriptedPublisher implements AutoCloseable {
  private static final int RECEIVE_TIMEOUT_MILLIS = 20_000;

  /** A replay request as the ROUTER saw it. */
  record Request(byte[] identity, long from) {}

  private final ZContext context = new ZContext(1);
  private final ZMQ.Socket pub = context.createSocket(SocketType.XPUB);
  private final ZMQ.Socket router = context.createSocket(SocketType.ROUTER);
  final String endpoint;
  final String replayEndpoint;

  ScriptedPublisher() {
    pub.setXpubVerbose(true); // every subscriber's subscription, not only the first one's
    pub.setReceiveTimeOut(RECEIVE_TIMEOUT_MILLIS);
    router.setReceiveTimeOut(RECEIVE_TIMEOUT_MILLIS);
    endpoint = "tcp://127.0.0.1:" + pub.bindToRandomPort("tcp://127.0.0.1");
    replayEndpoint = "tcp://127.0.0.1:" + router.bindToRandomPort("tcp://127.0.0.1");
  }

  /**
   * The payload of batch {@code seq}: one removal of block {@code seq} (see {@link
   * RecordingListener}).
   */
  static byte[] payload(long seq) {
    return VllmEventCodec.encode(
        new VllmEventBatch(1.0, List.of(VllmEvent.BlockRemoved.of(List.of(seq))), 0),
        VllmEventCodec.Encoding.MAP);
  }

  /**
   * The payload of a batch {@code seq} of about {@code bytes} bytes: a removal of block {@code seq}
   * and of as many others as it takes.
   */
  static byte[] payload(long seq, int bytes) {
    List<Long> blocks = new ArrayList<>();
    blocks.add(seq);
    for (long other = 1_000_000; blocks.size() < bytes / 5; other++) {
      blocks.add(other);
    }
    return VllmEventCodec.encode(
        new VllmEventBatch(1.0, List.of(VllmEvent.BlockRemoved.of(blocks)), 0),
        VllmEventCodec.Encoding.MAP);
  }

  /**
   * Waits until a subscriber has subscribed (XPUB hands its subscription over; the unsubscription
   * of a subscriber that went away is skipped).
   */
  void awaitSubscriber() {
    byte[] subscription;
    do {
      subscription = pub.recv();
      if (subscription == null) {
        throw new AssertionError("no subscriber connected");
      }
    } while (subscription.length == 0 || subscription[0] != 1);
  }

  /** Sends batch {@code seq} on the PUB socket. */
  void publish(long seq) {
    publish(seq, payload(seq));
  }

  /** Sends {@code payload} as batch {@code seq} on the PUB socket. */
  void publish(long seq, byte[] payload) {
    pub.sendMore("");
    pub.sendMore(ZmqFrames.seq(seq));
    pub.send(payload);
  }

  /** Waits for the next replay request. */
  Request nextRequest() {
    ZMsg request = ZMsg.recvMsg(router);
    if (request == null) {
      throw new AssertionError("no replay request");
    }
    byte[] identity = request.pop().getData();
    request.pop();
    return new Request(identity, ZmqFrames.seq(request.pop().getData()));
  }

  /** Answers {@code request} with batches {@code from} to {@code to} (inclusive). */
  void answer(Request request, long from, long to) {
    for (long seq = from; seq <= to; seq++) {
      ZmqFrames.sendReply(router, request.identity(), seq, payload(seq));
    }
  }

  /** Answers {@code request} with {@code payload} as batch {@code seq}. */
  void answer(Request request, long seq, byte[] payload) {
    ZmqFrames.sendReply(router, request.identity(), seq, payload);
  }

  /** Sends the end-of-replay marker to {@code request}. */
  void end(Request request) {
    ZmqFrames.sendEndOfReplay(router, request.identity());
  }

  @Override
  public void close() {
    context.close();
  }
}
