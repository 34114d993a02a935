package io.kvrouter.protocol;

import java.util.Map;

/**
 * The client is over one of its rate limits (requests or tokens per minute, or requests in flight):
 * the frontend answers 429 with {@code Retry-After}, as OpenAI does, so OpenAI SDKs raise their
 * rate-limit error.
 */
public final class RateLimitedException extends RouterException {
  private final String type;
  private final long retryAfterMillis;
  private final Map<String, String> headers;

  /**
   * @param type what ran out, as OpenAI's error body types it: {@code requests} or {@code tokens}
   * @param retryAfterMillis how long until the request could pass, at least 1 ms
   * @param headers more response headers that describe the limit ({@code x-ratelimit-*})
   */
  public RateLimitedException(
      String message, String type, long retryAfterMillis, Map<String, String> headers) {
    super(message, null);
    this.type = type;
    this.retryAfterMillis = Math.max(1, retryAfterMillis);
    this.headers = Map.copyOf(headers);
  }

  public String type() {
    return type;
  }

  public long retryAfterMillis() {
    return retryAfterMillis;
  }

  public Map<String, String> headers() {
    return headers;
  }
}
