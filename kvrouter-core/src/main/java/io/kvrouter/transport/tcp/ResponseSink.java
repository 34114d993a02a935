package io.kvrouter.transport.tcp;

import io.vertx.core.Context;
import io.vertx.core.buffer.Buffer;

/**
 * The worker's end of one response stream, as the publishers ({@link ResponsePublisher}, {@link
 * AnswerPublisher}) write it: on a call-home connection of its own ({@link WorkerCallHome}) or as a
 * logical stream of a pooled multiplexed connection ({@link MuxResponseSink}). Everything after
 * {@link #connect} runs on {@link #context()}.
 *
 * <pre>
 *                 call-home (TwoPart frames)          mux (MuxFrame)
 * prologue(p)     header-only JSON                     Prologue, JSON payload
 * data(json)      body-only NetworkStreamWrapper       Data, the same JSON
 * end()           header-only "sentinel"               End, empty
 * </pre>
 */
interface ResponseSink {

  /** What the publisher of the stream hears, on the sink's context. */
  interface Listener {
    /** The stream is open: the publisher may start the engine and write. */
    void connected();

    /** The frontend asked to stop, or went away before the end: stop producing. */
    void cancelled();

    /** There is room to write again after {@link #writeQueueFull()}. */
    void drained();
  }

  void connect(Listener listener);

  /** The sink's context; set once connected. */
  Context context();

  /** The prologue; one with an error also ends the stream (nothing may follow it). */
  void prologue(StreamPrologue prologue);

  /** One {@code NetworkStreamWrapper} JSON ({@link ResponseEnvelope}). */
  void data(Buffer envelope);

  /** The worker's last word on a stream that ran: nothing follows. */
  void end();

  boolean writeQueueFull();

  /** Whether the stream is over: its last frame written, or the frontend cancelled it. */
  boolean finished();
}
