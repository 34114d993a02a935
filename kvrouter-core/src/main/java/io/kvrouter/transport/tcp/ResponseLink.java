package io.kvrouter.transport.tcp;

/**
 * What a {@link CallHomeReader} holds of the transport its response arrives on: a call-home socket
 * of its own ({@link SocketLink}) or one logical stream of a shared multiplexed connection ({@link
 * MuxStreamLink}). Called on the transport's event loop.
 */
interface ResponseLink {

  /** Stop taking more from the worker: the socket stops being read, or credits stop flowing. */
  void pause();

  /** Take more again. */
  void resume();

  /** Cancel at the worker ({@code "kill"} / a {@code Kill} frame) and let the stream go. */
  void kill();

  /** The stream is over: let it go without telling the worker anything. */
  void close();
}
