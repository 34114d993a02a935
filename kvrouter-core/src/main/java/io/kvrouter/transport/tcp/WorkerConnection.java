package io.kvrouter.transport.tcp;

import io.kvrouter.config.TcpConfig;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request-plane connection on the worker: decodes request frames and writes exactly one ack per
 * frame, in arrival order. The request is checked completely (path, envelope, control header, body)
 * before it is acknowledged, so a refused request gets a rejection instead of a stream that never
 * opens. A frame that breaks the wire format or the size limit gets a {@code Read error} reply and
 * the connection is closed, as Dynamo's worker does. Runs on the socket's event loop.
 */
final class WorkerConnection {
  private static final Logger LOG = LoggerFactory.getLogger(WorkerConnection.class);

  private final NetSocket socket;
  private final ServedCalls served;
  private final RequestFrameDecoder decoder;

  WorkerConnection(NetSocket socket, ServedCalls served, TcpConfig config) {
    this.socket = socket;
    this.served = served;
    this.decoder = new RequestFrameDecoder(config.maxMessageSize());
  }

  void start() {
    socket.handler(this::onData);
    socket.exceptionHandler(
        e -> LOG.debug("request-plane connection {}: {}", socket.remoteAddress(), e.toString()));
  }

  private void onData(Buffer chunk) {
    try {
      decoder.decode(chunk, this::onRequest);
    } catch (TcpCodecException e) {
      LOG.warn(
          "closing request-plane connection from {}: {}", socket.remoteAddress(), e.getMessage());
      socket.write(AckEncoder.encode(Ack.rejected("Read error: " + e.getMessage())));
      socket.close();
    }
  }

  private void onRequest(RequestFrame frame) {
    ServedCalls.Accepted call;
    try {
      call = served.accept(frame.path(), frame.payload());
    } catch (ServedCalls.Refused refused) {
      LOG.warn("refusing a request from {}: {}", socket.remoteAddress(), refused.getMessage());
      ack(refused.ack());
      return;
    }
    ack(Ack.ACCEPTED);
    served.start(call);
  }

  private void ack(Ack ack) {
    socket.write(AckEncoder.encode(ack));
  }
}
