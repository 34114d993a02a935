package io.kvrouter.transport.tcp;

import io.vertx.core.net.NetSocket;

/** A response stream on a call-home connection of its own: flow control is the socket's. */
record SocketLink(NetSocket socket, CallHomeFrames frames) implements ResponseLink {

  @Override
  public void pause() {
    socket.pause();
  }

  @Override
  public void resume() {
    socket.resume();
  }

  @Override
  public void kill() {
    socket.write(frames.control(ControlMessage.KILL));
    socket.close();
  }

  @Override
  public void close() {
    socket.close();
  }
}
