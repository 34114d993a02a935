package io.kvrouter.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The optional fields of plain engines' request bodies (vLLM's, SGLang's), written only when set
 * and read as null when missing or {@code null}.
 */
public final class JsonValues {
  private JsonValues() {}

  /** Puts {@code value} under {@code key} unless it is null. */
  public static void putIfSet(ObjectNode body, String key, Object value) {
    if (value != null) {
      body.putPOJO(key, value);
    }
  }

  public static Integer integer(JsonNode body, String key) {
    return body.hasNonNull(key) ? body.get(key).asInt() : null;
  }

  public static Long longValue(JsonNode body, String key) {
    return body.hasNonNull(key) ? body.get(key).asLong() : null;
  }

  public static Double decimal(JsonNode body, String key) {
    return body.hasNonNull(key) ? body.get(key).asDouble() : null;
  }

  public static Boolean bool(JsonNode body, String key) {
    return body.hasNonNull(key) ? body.get(key).asBoolean() : null;
  }
}
