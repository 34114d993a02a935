package io.kvrouter.frontend;

import java.util.regex.Pattern;

/**
 * Decides whether an engine's own error message may reach the client. Dynamo's frontend answers an
 * engine's error with the engine's message, and engines put what the client got wrong there ("the
 * prompt is too long"); but an engine may also put a Python traceback, an exception class, a source
 * file, a host, an address or a pod name there. A message that is one line of at most {@value
 * #MAX_LENGTH} characters with none of those ({@link #INTERNAL}) is shown; any other is replaced by
 * a generic one, and kept in the router's log. Erring towards the generic message costs a client
 * only the detail of an engine's error, never its status.
 */
final class EngineMessages {
  static final int MAX_LENGTH = 500;

  /** Hexadecimal group of an IPv6 address. */
  private static final String HEX = "[0-9A-Fa-f]{1,4}";

  /** The alphabet of the random parts of a Kubernetes pod name (no vowels, no 0, 1, 3). */
  private static final String POD_CHARS = "[bcdfghjklmnpqrstvwxz2456789]";

  /**
   * What betrays an internal detail, one alternative a line: a traceback and its frames, a Java or
   * Python exception class ({@code ValueError:}, {@code RuntimeError: CUDA out of memory}), a file
   * path absolute or relative ({@code vllm/v1/engine/core.py}), a dotted module or host name, a
   * URL, an address (IPv4, IPv6, host:port) and a pod name of a Kubernetes Deployment ({@code
   * vllm-decode-7d9f8b6c4d-x2kq9}).
   */
  private static final Pattern INTERNAL =
      Pattern.compile(
          String.join(
              "|",
              "Traceback|File \"|\\bline \\d+\\b",
              "\\bat [\\w$.]+\\(",
              "Exception|\\b\\w+(Error|Warning)\\b",
              "(^|[\\s'\"(=:,])(/|~/|[A-Za-z]:\\\\)[^\\s/\\\\]+[/\\\\]",
              "[\\w.-]+/[\\w./-]*\\.(py|pyx|so|c|cc|cpp|cu|h|hpp|rs|go|java)\\b",
              "\\b[a-z_][a-z0-9_]*(\\.[a-z_][a-z0-9_]*){2,}\\b",
              "\\b[a-z][a-z0-9+.-]*://",
              "\\b\\d{1,3}(\\.\\d{1,3}){3}\\b",
              "\\[[0-9A-Fa-f:.]+\\]",
              "(?<![\\w:])("
                  + HEX
                  + "(:"
                  + HEX
                  + "){0,6})?::("
                  + HEX
                  + "(:"
                  + HEX
                  + "){0,6})?(?![\\w:])",
              "(?<![\\w:])" + HEX + "(:" + HEX + "){7}(?![\\w:])",
              "\\b[A-Za-z]([A-Za-z0-9-]*[A-Za-z0-9])?(\\.[A-Za-z0-9-]+)*:\\d{2,5}\\b",
              "\\b[a-z0-9]([a-z0-9-]*[a-z0-9])?-" + POD_CHARS + "{6,10}-" + POD_CHARS + "{5}\\b"));

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
