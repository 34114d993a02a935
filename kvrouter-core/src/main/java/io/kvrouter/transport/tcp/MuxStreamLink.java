package io.kvrouter.transport.tcp;

import java.util.UUID;

/**
 * One logical response stream on a {@link FrontendMuxConnection}. Its flow control is the stream's
 * credit window: every {@code Data} frame read is given back to the worker as credits ({@code
 * WindowUpdate}) while the reader takes outputs, and held back while it is paused, so a worker
 * whose client reads slowly stops after one window (Dynamo's default 256 KiB) while the other
 * streams on the connection go on. Runs on the connection's event loop.
 */
final class MuxStreamLink implements ResponseLink {
  private final FrontendMuxConnection connection;
  private final UUID streamId;
  private CallHomeReader reader;
  private boolean paused;
  private long heldCredits;

  MuxStreamLink(FrontendMuxConnection connection, UUID streamId) {
    this.connection = connection;
    this.streamId = streamId;
  }

  UUID streamId() {
    return streamId;
  }

  void bind(CallHomeReader reader) {
    this.reader = reader;
  }

  CallHomeReader reader() {
    return reader;
  }

  /**
   * A {@code Data} frame for this stream: its cost is credited back unless paused. A frame larger
   * than the window cost the worker the whole window ({@code encoded_len.min(max_credits)}), so
   * that is what comes back.
   */
  void onData(MuxFrame frame) {
    long cost = Math.min(frame.encodedLength(), WorkerMuxConnection.STREAM_WINDOW);
    if (paused) {
      heldCredits += cost;
    } else {
      connection.grant(streamId, cost);
    }
    reader.onItem(frame.payload());
  }

  @Override
  public void pause() {
    paused = true;
  }

  @Override
  public void resume() {
    paused = false;
    if (heldCredits > 0) {
      connection.grant(streamId, heldCredits);
      heldCredits = 0;
    }
  }

  @Override
  public void kill() {
    if (connection.forget(this)) {
      connection.send(MuxFrame.empty(MuxFrameKind.KILL, streamId));
    }
  }

  @Override
  public void close() {
    connection.forget(this);
  }
}
