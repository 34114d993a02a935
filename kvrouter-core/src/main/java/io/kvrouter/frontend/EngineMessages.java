package io.kvrouter.frontend;

import java.util.regex.Pattern;

/**
 * Decides whether an engine's own error message may reach the client. Dynamo's frontend answers an
 * engine's error with the engine's message, and engines put what the client got wrong there ("the
 * prompt is too long"); but an engine may also put a Python traceback, a file path or an address
 * there. A message that is one line of at most {@value #MAX_LENGTH} characters with none of those
 * is shown; any other is replaced by a generic one, and kept in the router's log.
 */
final class EngineMessages {
  static final int MAX_LENGTH = 500;

  /** What betrays an internal detail: a traceback, an exception, a path, an address. */
  private static final Pattern INTERNAL =
      Pattern.compile(
          "Traceback|Exception|\\bat [\\w$.]+\\(" // stack traces, Java or Python
              + "|(^|[\\s'\"(=:,])(/|~/|[A-Za-z]:\\\\)[^\\s/\\\\]+[/\\\\]" // file paths
              + "|\\b\\d{1,3}(\\.\\d{1,3}){3}\\b" // IPv4 addresses
              + "|\\[[0-9A-Fa-f:]+\\]" // IPv6 addresses
              + "|\\b(localhost|[A-Za-z0-9-]+(\\.[A-Za-z0-9-]+)+):\\d{1,5}\\b"); // host:port

  private EngineMessages() {}

  /** Whether {@code message} can be shown to the client as the engine wrote it. */
  static boolean clientSafe(String message) {
    return message != null
        && !message.isBlank()
        && message.length() <= MAX_LENGTH
        && message.indexOf('\n') < 0
        && message.indexOf('\r') < 0
        && !INTERNAL.matcher(message).find();
  }
}
