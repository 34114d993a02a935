package io.kvrouter.transport.tcp;

/**
 * A frame broke the wire format or a size limit. Once a decoder has thrown it, the byte stream is
 * out of step and the connection that carried it must be closed by its owner.
 */
final class TcpCodecException extends RuntimeException {

  TcpCodecException(String message) {
    super(message);
  }

  TcpCodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
