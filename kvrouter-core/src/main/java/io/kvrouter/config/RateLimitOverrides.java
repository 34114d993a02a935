package io.kvrouter.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The limits a keys file sets for one key ({@code rpm=N tpm=N concurrency=N}, each a positive
 * integer or {@code none}); a limit it does not set is the flag's default.
 *
 * @param requestsPerMinute null for the default, 0 for no limit
 * @param tokensPerMinute null for the default, 0 for no limit
 * @param concurrentRequests null for the default, 0 for no limit
 */
public record RateLimitOverrides(
    Long requestsPerMinute, Long tokensPerMinute, Long concurrentRequests) {
  /** Nothing overridden: the defaults apply. */
  public static final RateLimitOverrides NONE = new RateLimitOverrides(null, null, null);

  /** The option names of a keys-file line. */
  public static final String RPM = "rpm";

  public static final String TPM = "tpm";
  public static final String CONCURRENCY = "concurrency";

  /** {@code defaults} with these overrides applied. */
  public RateLimits over(RateLimits defaults) {
    return new RateLimits(
        requestsPerMinute == null ? defaults.requestsPerMinute() : requestsPerMinute,
        tokensPerMinute == null ? defaults.tokensPerMinute() : tokensPerMinute,
        concurrentRequests == null ? defaults.concurrentRequests() : concurrentRequests);
  }

  /**
   * The overrides of a keys-file line's options ({@code rpm=60}, {@code tpm=none}, ...).
   *
   * @throws IllegalArgumentException naming the option at fault
   */
  public static RateLimitOverrides parse(List<String> options) {
    Long rpm = null;
    Long tpm = null;
    Long concurrency = null;
    List<String> seen = new ArrayList<>();
    for (String option : options) {
      int eq = option.indexOf('=');
      String name = eq < 0 ? option : option.substring(0, eq);
      if (eq < 0 || !List.of(RPM, TPM, CONCURRENCY).contains(name)) {
        // the token is not repeated: it may be a key written where it does not belong
        throw new IllegalArgumentException(
            "expected [NAME] KEY, then limits as rpm=N, tpm=N or concurrency=N");
      }
      if (seen.contains(name)) {
        throw new IllegalArgumentException(name + "= is given twice");
      }
      seen.add(name);
      long value = limit(name, option.substring(eq + 1));
      switch (name) {
        case RPM -> rpm = value;
        case TPM -> tpm = value;
        default -> concurrency = value;
      }
    }
    return new RateLimitOverrides(rpm, tpm, concurrency);
  }

  private static long limit(String name, String raw) {
    if (raw.equals("none")) {
      return 0;
    }
    long value;
    try {
      value = Long.parseLong(raw);
    } catch (NumberFormatException e) {
      value = -1;
    }
    if (value < 1 || value > RateLimits.MAX) {
      throw new IllegalArgumentException(
          name
              + "= is a whole number from 1 to "
              + RateLimits.MAX
              + ", or 'none' for no limit, not '"
              + raw
              + "' (to refuse a key altogether, remove it)");
    }
    return value;
  }
}
