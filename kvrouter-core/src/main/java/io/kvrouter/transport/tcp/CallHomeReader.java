package io.kvrouter.transport.tcp;

/**
 * What reads a response stream once the worker's prologue said the request runs, whether the stream
 * came on a call-home connection or on a multiplexed one ({@link ResponseLink}): a {@link
 * CallHomeStream} hands a generate stream's outputs to its subscriber as they come, a {@link
 * CallHomeAnswer} gathers another endpoint's answer whole. Every method runs on the transport's
 * event loop except {@link #cancel()}, which may be called from anywhere.
 */
interface CallHomeReader {

  /**
   * The body of a data frame that followed the prologue (a {@code NetworkStreamWrapper}). Throws
   * {@link TcpCodecException} if it is malformed.
   */
  void onItem(io.vertx.core.buffer.Buffer body);

  /** The worker ended the stream: its sentinel, or a mux {@code End} frame. */
  void onEnd();

  /** The socket closed; data Vert.x still holds for a paused socket may follow. */
  void onSocketClosed();

  /**
   * Everything the worker sent has been delivered and the stream is gone: the call-home socket
   * ended, or the mux connection carrying it broke or the worker reset the stream.
   */
  void onSocketEnd();

  /** The worker broke the wire format; the reader ends with an error and closes the socket. */
  void onProtocolError(String reason);

  /** The frontend gives up on the request: tells the worker to stop and closes the socket. */
  void cancel();
}
