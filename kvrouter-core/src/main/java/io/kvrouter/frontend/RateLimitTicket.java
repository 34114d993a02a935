package io.kvrouter.frontend;

import io.kvrouter.common.Ticker;
import io.kvrouter.preprocess.AdmissionGate;
import io.kvrouter.preprocess.GenerationRequest;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.RateLimitedException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One admitted generation request's hold on its key's limits: its place in flight, until {@link
 * #release}, and, as the {@link AdmissionGate} of each of its prompts, their token bookings.
 *
 * <p>A prompt books its tokens plus its {@code max_tokens}; without {@code max_tokens}, plus what
 * the context leaves, at most the key's whole per-minute budget (the booking is corrected at the
 * end, so a request that did not bound its completion waits for room, never for ever). A request
 * whose prompt and {@code max_tokens}, or prompt alone, are more than the key's tokens per minute
 * could never pass: it gets 400, not 429, since waiting does not help it and the OpenAI SDKs would
 * retry a 429 for nothing. A prompt refused for want of tokens gives the request it was counted as
 * back to its key.
 *
 * <p>A completions request of several prompts ({@link #prompts}) books what each prompt needs at
 * least (its prompt and {@code max_tokens}, or its prompt alone without one): what those needs add
 * up to must fit the minute, else the request is a 400 too, and a full bucket then admits every
 * prompt, so a retried request cannot be refused for ever. A completion that goes past its booking
 * is charged at the end.
 */
class RateLimitTicket implements AdmissionGate {
  /** The ticket of a key without limits. */
  static final RateLimitTicket UNLIMITED = new RateLimitTicket(null, null);

  private final KeyLimiter key;
  private final Ticker ticker;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicBoolean requestGivenBack = new AtomicBoolean();
  private final java.util.concurrent.atomic.AtomicLong needs =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile int prompts = 1;

  RateLimitTicket(KeyLimiter key, Ticker ticker) {
    this.key = key;
    this.ticker = ticker;
  }

  /** How many prompts the request has, each booked through this ticket (1 unless told). */
  void prompts(int count) {
    if (key != null) {
      prompts = Math.max(1, count);
    }
  }

  @Override
  public Booking admit(GenerationRequest request, int promptTokens, int completionTokens) {
    if (key == null) {
      return used -> {};
    }
    TokenBucket bucket = key.tokens();
    long capacity = bucket.capacity();
    if (capacity == 0) {
      return key::used;
    }
    boolean bounded = request.maxTokens() != null;
    long wanted = (long) promptTokens + completionTokens;
    if (bounded ? wanted > capacity : promptTokens > capacity) {
      refuse();
      String param =
          bounded
              ? request.maxTokensParam()
              : request.prompt() instanceof Prompt.Chat ? "messages" : "prompt";
      throw new InvalidRequestException(
          "Request too large for "
              + RateLimiter.who(key)
              + " on tokens per min (TPM): Limit "
              + capacity
              + ", Requested "
              + (bounded
                  ? wanted
                      + " ("
                      + promptTokens
                      + " in the prompt and "
                      + completionTokens
                      + " for '"
                      + request.maxTokensParam()
                      + "'). Lower '"
                      + request.maxTokensParam()
                      + "' or shorten the prompt."
                  : promptTokens + " in the prompt alone. Shorten the prompt."),
          param);
    }
    long need = bounded ? wanted : promptTokens;
    if (prompts > 1 && needs.addAndGet(need) > capacity) {
      refuse();
      throw new InvalidRequestException(
          "Request too large for "
              + RateLimiter.who(key)
              + " on tokens per min (TPM): Limit "
              + capacity
              + ", Requested at least "
              + needs.get()
              + " for its "
              + prompts
              + " prompts together. Send fewer prompts, lower '"
              + request.maxTokensParam()
              + "' or shorten them.",
          "prompt");
    }
    long booking = prompts > 1 ? need : Math.min(wanted, capacity);
    long now = ticker.nanos();
    TokenBucket.Take take = bucket.take(booking, now);
    if (!take.taken()) {
      refuse();
      throw new RateLimitedException(
          "Rate limit reached for "
              + RateLimiter.who(key)
              + " on tokens per min (TPM): Limit "
              + capacity
              + ", Remaining "
              + bucket.level(now).remaining()
              + ", Requested "
              + booking
              + (bounded ? "" : " (no '" + request.maxTokensParam() + "': what the context leaves)")
              + ". Please try again in "
              + RateLimiter.seconds(take.waitNanos())
              + "s.",
          "tokens",
          RateLimiter.millis(take.waitNanos()),
          RateLimiter.headers(key, now));
    }
    key.booked(booking);
    return used -> settle(booking, take.until(), used);
  }

  /**
   * Corrects a booking to what was used: gives back the rest (as much of it as the time since has
   * not refilled already), or charges what went over.
   */
  private void settle(long booked, long bookedUntil, long used) {
    long now = ticker.nanos();
    if (used < booked) {
      key.tokens().giveBack(booked - used, now, bookedUntil);
    } else if (used > booked) {
      key.tokens().charge(used - booked, now);
    }
    key.used(used);
  }

  /** A prompt was refused: the request no longer counts, once, however many prompts it had. */
  private void refuse() {
    key.refused(KeyLimiter.Refusal.TOKENS);
    if (requestGivenBack.compareAndSet(false, true)) {
      key.requests().giveBack(1, ticker.nanos());
    }
  }

  /** The {@code x-ratelimit-*} headers for the response, as the key's buckets are now. */
  Map<String, String> headers() {
    return key == null ? Map.of() : RateLimiter.headers(key, ticker.nanos());
  }

  /** The request ended: its place in flight is free. Later calls do nothing. */
  void release() {
    if (key != null && released.compareAndSet(false, true)) {
      key.exit();
    }
  }
}
