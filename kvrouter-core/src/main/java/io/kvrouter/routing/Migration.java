package io.kvrouter.routing;

import io.kvrouter.protocol.PreprocessedRequest;
import java.util.Objects;

/**
 * Request migration as Dynamo's frontend does it ({@code --migration-limit}, {@code
 * lib/llm/src/migration.rs} read at 0135b9a5 and at the newest version the index stores, whose
 * commit it does not give; docs/interop.md §10.10): a request whose worker's stream breaks after
 * output has begun continues on another worker, with the tokens generated so far appended to its
 * prompt, at most {@code limit} times.
 *
 * @param limit how many times one request may move to another worker; 0 turns migration off
 * @param model the served model's name, the {@code model} label of the migration counter
 */
public record Migration(int limit, String model) {
  /** Migration off, Dynamo's default. */
  public static final Migration OFF = new Migration(0, "");

  public Migration {
    if (limit < 0) {
      throw new IllegalArgumentException("migration limit " + limit + " is negative");
    }
    Objects.requireNonNull(model, "model");
  }

  /**
   * The migrations {@code request} may have: none for {@code n} above 1, whose choices' states
   * cannot move to another worker (Dynamo disables it likewise); else {@link #limit}.
   */
  int limitFor(PreprocessedRequest request) {
    Integer n = request.samplingOptions().n();
    return n != null && n > 1 ? 0 : limit;
  }
}
