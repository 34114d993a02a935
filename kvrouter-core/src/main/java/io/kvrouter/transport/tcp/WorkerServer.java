package io.kvrouter.transport.tcp;

import io.vertx.core.Future;

/** A running worker-side TCP request-plane server. */
public interface WorkerServer {

  /** The port it listens on: the one the OS chose when asked for port 0. */
  int port();

  /** How many call-home connections (one per response) the worker has opened to frontends. */
  int callHomeConnectionsOpened();

  /** How many {@code tcp_response_mux_v1} connections the worker has opened to frontends. */
  int muxConnectionsOpened();

  /** Stops listening and closes every connection; engine streams still running are cancelled. */
  Future<Void> close();
}
