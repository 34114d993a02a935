package io.kvrouter.events.zmq;

import io.kvrouter.protocol.dynamo.EventEnvelope;
import io.kvrouter.protocol.dynamo.EventEnvelopeCodec;
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

/**
 * One publisher of Dynamo's ZMQ event plane ("E3", direct mode): a bound PUB socket that sends each
 * payload given to {@link #publish} as the four-frame message of {@link EventEnvelopeCodec} ({@code
 * [topic | publisher_id | sequence | 0x01, length, envelope]}), all on one topic. A Dynamo worker
 * has one such publisher per topic; the simulated worker uses this class, and {@link
 * DynamoZmqSubscriber} or a Dynamo router reads it.
 *
 * <p>The envelope carries the publisher id given at start (use a fresh one per process start, as
 * Dynamo does: subscribers drop a (publisher id, sequence) pair they have seen, so a restart that
 * reused the id would have its first messages dropped), a sequence that starts at 0 and grows by
 * one per {@link #publish} call, and the publishing time in Unix milliseconds.
 *
 * <p>{@link #publish} is thread-safe and only queues; one thread owns the socket (ZeroMQ sockets
 * are not thread-safe) and sends. Like Dynamo's publisher the socket never blocks: beyond 100,000
 * queued messages per subscriber ZeroMQ drops. {@code dropRate} drops that fraction of messages on
 * purpose, after numbering them, so a subscriber sees the sequence jump, as it would on a lossy
 * network.
 */
public final class DynamoZmqPublisher implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DynamoZmqPublisher.class);
  private static final long IDLE_POLL_MILLIS = 100;

  /**
   * @param host the address the PUB socket binds (loopback, an interface address, or {@code *})
   * @param port the port; 0 picks a free one
   * @param topic the topic of every message, e.g. {@code kv-events} or {@code kv_metrics}
   * @param publisherId the u64 publisher id stamped on every message
   * @param dropRate the fraction of messages dropped on purpose, in [0, 1)
   * @param seed the seed of the drops
   */
  public record Options(
      String host, int port, String topic, long publisherId, double dropRate, long seed) {
    public Options {
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(topic, "topic");
      if (port < 0 || port > 65_535) {
        throw new IllegalArgumentException("port must be in 0..65535: " + port);
      }
      if (!(dropRate >= 0 && dropRate < 1)) {
        throw new IllegalArgumentException("dropRate must be in [0, 1): " + dropRate);
      }
    }

    /** A free port on {@code host}, no drops. */
    public static Options of(String host, String topic, long publisherId) {
      return new Options(host, 0, topic, publisherId, 0, 0);
    }

    public Options withPort(int newPort) {
      return new Options(host, newPort, topic, publisherId, dropRate, seed);
    }

    public Options withDropRate(double rate, long newSeed) {
      return new Options(host, port, topic, publisherId, rate, newSeed);
    }
  }

  private final Options options;
  private final ZContext context = new ZContext(1);
  private final ZMQ.Socket pub;
  private final int port;
  private final BlockingQueue<List<byte[]>> queue = new LinkedBlockingQueue<>();
  private final SplittableRandom drops;
  private final SocketThread thread;
  private final Object numbering = new Object();
  private long nextSequence; // guarded by numbering
  private volatile long dropped;

  private DynamoZmqPublisher(Options options) {
    this.options = options;
    this.drops = new SplittableRandom(options.seed());
    try {
      this.pub = context.createSocket(SocketType.PUB);
      pub.setSndHWM(100_000);
      pub.setLinger(0);
      this.port = ZmqEventPublisher.bind(pub, options.host(), options.port());
    } catch (RuntimeException e) {
      context.close(); // release ZeroMQ's threads (and the socket, if it was created)
      throw e;
    }
    this.thread = new SocketThread("dynamo-events-publisher-" + port, this::run);
  }

  /** Binds the PUB socket and starts its thread. */
  public static DynamoZmqPublisher start(Options options) {
    DynamoZmqPublisher publisher = new DynamoZmqPublisher(Objects.requireNonNull(options));
    publisher.thread.start();
    return publisher;
  }

  /** The bound port. */
  public int port() {
    return port;
  }

  public String topic() {
    return options.topic();
  }

  public long publisherId() {
    return options.publisherId();
  }

  /**
   * Stamps {@code payload} with the next sequence and the time, and queues it; returns at once.
   * Ignored once closed. Calls from several threads are numbered in the order they queue.
   */
  public void publish(byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    synchronized (numbering) {
      if (!thread.running()) {
        return;
      }
      EventEnvelope envelope =
          new EventEnvelope(
              options.publisherId(),
              nextSequence++,
              System.currentTimeMillis(),
              options.topic(),
              payload.clone());
      queue.add(EventEnvelopeCodec.encodeMessage(envelope));
    }
  }

  /** How many payloads were numbered so far: the sequence the next one gets. */
  public long published() {
    synchronized (numbering) {
      return nextSequence;
    }
  }

  /** How many numbered messages were dropped on purpose ({@code dropRate}). */
  public long dropped() {
    return dropped;
  }

  private void run() {
    try {
      while (thread.running()) {
        List<byte[]> frames = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
        while (frames != null) {
          send(frames);
          frames = queue.poll();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      if (thread.running()) {
        log.error("Dynamo event publisher on port {} ({}) stopped", port, options.topic(), e);
      }
    } finally {
      context.close();
    }
  }

  private void send(List<byte[]> frames) {
    if (options.dropRate() > 0 && drops.nextDouble() < options.dropRate()) {
      dropped++; // only this thread writes it
      return;
    }
    int last = frames.size() - 1;
    for (int i = 0; i < last; i++) {
      pub.sendMore(frames.get(i));
    }
    pub.send(frames.get(last));
  }

  /** Stops the thread and closes the socket; messages queued but not yet sent are dropped. */
  @Override
  public void close() {
    thread.stop();
  }
}
