package io.kvrouter.transport.tcp;

/**
 * What reads a call-home connection once the worker's prologue said the request runs: a {@link
 * CallHomeStream} hands a generate stream's outputs to its subscriber as they come, a {@link
 * CallHomeAnswer} gathers another endpoint's answer whole. Every method runs on the socket's event
 * loop except {@link #cancel()}, which may be called from anywhere.
 */
interface CallHomeReader {

  /** A frame that followed the prologue. Throws {@link TcpCodecException} if it is malformed. */
  void onFrame(TwoPartMessage frame);

  /** The socket closed; data Vert.x still holds for a paused socket may follow. */
  void onSocketClosed();

  /** Everything the worker sent has been delivered. */
  void onSocketEnd();

  /** The worker broke the wire format; the reader ends with an error and closes the socket. */
  void onProtocolError(String reason);

  /** The frontend gives up on the request: tells the worker to stop and closes the socket. */
  void cancel();
}
