package io.kvrouter.frontend.openai;

import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import java.util.Set;

/**
 * A client's cache salt, the namespace its request's KV blocks are cached and reused under, as the
 * two upstream APIs accept it:
 *
 * <ul>
 *   <li>vLLM's top-level {@code cache_salt} on chat completions and completions (vllm-project/vllm
 *       {@code vllm/entrypoints/openai/protocol.py}): a string; vLLM refuses an empty one;
 *   <li>Dynamo's {@code nvext.cache_salt} (ai-dynamo/dynamo, PR #8197, "the recommended request
 *       API"), which wins over the top-level field when both are given. {@code nvext} may hold
 *       nothing else here: the other Dynamo extensions are not served, and an ignored one would
 *       give the client something it did not ask for.
 * </ul>
 *
 * The gateway header {@code x-tenant-id}, which wins over both, is read by the frontend with {@link
 * #checked}.
 *
 * <p>A salt is 1 to {@value #MAX_LENGTH} characters. The bound leaves room for what the router adds
 * before it reaches vLLM (a key's name with {@code --cache-salt-per-key}, Dynamo's tag for vLLM's
 * {@code extra_keys}) inside the 1024 characters newer vLLM releases accept; a salt of 256 bits
 * needs 43 base64 characters.
 */
public final class CacheSalts {
  /** Most characters in a salt. */
  public static final int MAX_LENGTH = 512;

  /** The request field, and the field inside {@code nvext}. */
  static final String FIELD = "cache_salt";

  static final String NVEXT = "nvext";

  private CacheSalts() {}

  /**
   * The salt of a request body: {@code nvext.cache_salt}, else {@code cache_salt}, else null.
   *
   * @throws InvalidRequestException naming the field, for a value that is not a string, is empty or
   *     too long, or an {@code nvext} field other than {@code cache_salt}
   */
  static String fromBody(JsonFields request) {
    String topLevel = request.has(FIELD) ? checkedValue(FIELD, request.raw(FIELD)) : null;
    JsonObject nvext = request.object(NVEXT);
    if (nvext != null) {
      JsonFields ext = new JsonFields(nvext, NVEXT);
      ext.rejectUnknown(Set.of(FIELD));
      if (ext.has(FIELD)) {
        return checkedValue(ext.param(FIELD), ext.raw(FIELD));
      }
    }
    return topLevel;
  }

  /**
   * {@code value} of request part {@code param} (a field, or a header) as a salt.
   *
   * @throws InvalidRequestException naming {@code param} when it is empty or too long
   */
  public static String checked(String param, String value) {
    return checkedValue(param, value);
  }

  private static String checkedValue(String param, Object value) {
    if (!(value instanceof String salt)) {
      throw JsonFields.typeError(param, "a string");
    }
    if (salt.isEmpty()) {
      throw new InvalidRequestException(
          "Validation: '" + param + "' must be a non-empty string", param);
    }
    if (salt.length() > MAX_LENGTH) {
      throw new InvalidRequestException(
          "Validation: '"
              + param
              + "' must be at most "
              + MAX_LENGTH
              + " characters, got "
              + salt.length(),
          param);
    }
    return salt;
  }
}
