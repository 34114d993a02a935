package io.kvrouter.protocol;

/**
 * Workers are healthy but every one is over a busy threshold ({@code
 * --active-decode-blocks-threshold}, {@code --active-prefill-tokens-threshold}); the client should
 * retry later. The frontend answers with {@code --busy-status-code}.
 */
public final class AllWorkersBusyException extends RouterException {
  public AllWorkersBusyException(String message) {
    super(message, null);
  }
}
