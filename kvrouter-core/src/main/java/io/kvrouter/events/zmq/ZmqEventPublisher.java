package io.kvrouter.events.zmq;

import io.kvrouter.common.FaultLog;
import io.kvrouter.protocol.vllm.VllmEvent;
import io.kvrouter.protocol.vllm.VllmEventBatch;
import io.kvrouter.protocol.vllm.VllmEventCodec;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

/**
 * Publishes KV cache events the way a vLLM engine does (see {@link ZmqFrames}): a PUB socket
 * sending one batch per call of {@link #publish}, numbered from 0, and a ROUTER socket answering
 * replay requests from a buffer of the last {@code bufferSteps} batches. The simulated worker uses
 * it; the router's {@link ZmqEventSubscriber} reads it, or a real vLLM.
 *
 * <p>One thread owns both sockets (ZeroMQ sockets are not thread-safe): {@link #publish} only
 * queues. {@code dropRate} makes the PUB side lose that fraction of batches on purpose (they stay
 * in the replay buffer), to show that subscribers recover from a lossy network.
 *
 * <p>A replay request is two small frames; a client that sends a frame above {@link
 * #MAX_REQUEST_FRAME_BYTES} is disconnected by ZeroMQ before the frame is read, and a malformed
 * request is ignored and logged through a {@link FaultLog}.
 */
public final class ZmqEventPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZmqEventPublisher.class);
  private static final long IDLE_POLL_MILLIS = 2;

  /** The largest frame the replay socket takes: a request is an empty frame and an 8-byte one. */
  static final int MAX_REQUEST_FRAME_BYTES = 1024;

  /**
   * @param host the address both sockets bind
   * @param port the PUB port; 0 picks a free one
   * @param replayPort the ROUTER port; 0 picks a free one, -1 means no replay socket
   * @param dataParallelRank stamped on every batch
   * @param dropRate the fraction of batches the PUB side drops on purpose, 0 for none
   * @param seed the seed of the drops
   */
  public record Options(
      String host,
      int port,
      int replayPort,
      String topic,
      int bufferSteps,
      VllmEventCodec.Encoding encoding,
      int dataParallelRank,
      double dropRate,
      long seed) {
    public Options {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(topic, "topic");
      Objects.requireNonNull(encoding, "encoding");
      if (bufferSteps < 1) {
        throw new IllegalArgumentException("bufferSteps must be >= 1");
      }
      if (!(dropRate >= 0 && dropRate < 1)) {
        throw new IllegalArgumentException("dropRate must be in [0, 1)");
      }
    }

    /** vLLM's defaults (topic "", 10,000 buffered batches, current encoding) on {@code host}. */
    public static Options defaults(String host) {
      return new Options(host, 0, 0, "", 10_000, VllmEventCodec.Encoding.MAP, 0, 0, 0);
    }

    public Options withDropRate(double rate, long seed) {
      return new Options(
          host, port, replayPort, topic, bufferSteps, encoding, dataParallelRank, rate, seed);
    }

    public Options withPorts(int port, int replayPort) {
      return new Options(
          host, port, replayPort, topic, bufferSteps, encoding, dataParallelRank, dropRate, seed);
    }
  }

  private record Buffered(long seq, byte[] payload) {}

  private final Options options;
  private final ZContext context = new ZContext(1);
  private final ZMQ.Socket pub;
  private final ZMQ.Socket replay;
  private final int port;
  private final int replayPort;
  private final BlockingQueue<List<VllmEvent>> queue = new LinkedBlockingQueue<>();
  private final ArrayDeque<Buffered> buffer = new ArrayDeque<>();
  private final SplittableRandom drops;
  private final SocketThread thread;
  private final FaultLog faults = FaultLog.of(log, "malformed replay requests");
  private long nextSeq;

  private ZmqEventPublisher(Options options) {
    this.options = options;
    this.drops = new SplittableRandom(options.seed());
    try {
      this.pub = context.createSocket(SocketType.PUB);
      pub.setSndHWM(100_000);
      pub.setLinger(0);
      this.port = bind(pub, options.host(), options.port());
      if (options.replayPort() < 0) {
        this.replay = null;
        this.replayPort = -1;
      } else {
        this.replay = context.createSocket(SocketType.ROUTER);
        replay.setLinger(0);
        // a whole buffer's answer queues for a slow reader instead of being dropped
        replay.setSndHWM(options.bufferSteps() + 1);
        replay.setMaxMsgSize(MAX_REQUEST_FRAME_BYTES);
        this.replayPort = bind(replay, options.host(), options.replayPort());
      }
    } catch (RuntimeException e) {
      // the PUB socket may be bound already: release it and ZeroMQ's threads
      context.close();
      throw e;
    }
    this.thread = new SocketThread("kv-events-publisher-" + port, this::run);
  }

  /** Binds {@code socket} on {@code host}: on {@code requested}, or a free port when 0. */
  static int bind(ZMQ.Socket socket, String host, int requested) {
    String address = "tcp://" + host;
    if (requested == 0) {
      return socket.bindToRandomPort(address);
    }
    socket.bind(address + ":" + requested);
    return requested;
  }

  /** Binds both sockets and starts publishing. */
  public static ZmqEventPublisher start(Options options) {
    ZmqEventPublisher publisher = new ZmqEventPublisher(options);
    publisher.thread.start();
    return publisher;
  }

  public int port() {
    return port;
  }

  /** The replay port; -1 without a replay socket. */
  public int replayPort() {
    return replayPort;
  }

  /** Queues one batch of events; returns at once. Ignored once closed. */
  public void publish(List<VllmEvent> events) {
    if (thread.running() && !events.isEmpty()) {
      queue.add(List.copyOf(events));
    }
  }

  private void run() {
    try {
      while (thread.running()) {
        List<VllmEvent> events = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
        while (events != null) {
          send(events);
          events = queue.poll();
        }
        answerReplays();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (thread.running()) {
        log.error("KV event publisher on port {} stopped", port, e);
      }
    } finally {
      context.close();
    }
  }

  private void send(List<VllmEvent> events) {
    long seq = nextSeq++;
    byte[] payload =
        VllmEventCodec.encode(
            new VllmEventBatch(
                System.currentTimeMillis() / 1000.0, events, options.dataParallelRank()),
            options.encoding());
    buffer.addLast(new Buffered(seq, payload));
    if (buffer.size() > options.bufferSteps()) {
      buffer.removeFirst();
    }
    if (options.dropRate() > 0 && drops.nextDouble() < options.dropRate()) {
      return;
    }
    pub.sendMore(options.topic());
    pub.sendMore(ZmqFrames.seq(seq));
    pub.send(payload);
  }

  /** Answers every waiting replay request: each buffered batch from the start seq, then -1. */
  private void answerReplays() {
    if (replay == null) {
      return;
    }
    ZMsg request;
    while ((request = ZMsg.recvMsg(replay, ZMQ.DONTWAIT)) != null) {
      // [identity, "", start_seq]
      if (request.size() != 3) {
        faults.fault("a replay request ignored: " + request.size() + " frames, not 3");
        request.destroy();
        continue;
      }
      byte[] identity = request.pop().getData();
      request.pop();
      long start;
      try {
        start = ZmqFrames.seq(request.pop().getData());
      } catch (IllegalArgumentException e) {
        faults.fault("a replay request ignored: " + e.getMessage());
        continue;
      }
      for (Buffered batch : buffer) {
        if (batch.seq() >= start) {
          ZmqFrames.sendReply(replay, identity, batch.seq(), batch.payload());
        }
      }
      ZmqFrames.sendEndOfReplay(replay, identity);
    }
  }

  /** Stops the thread and closes the sockets; queued batches not yet sent are dropped. */
  @Override
  public void close() {
    thread.stop();
  }
}
