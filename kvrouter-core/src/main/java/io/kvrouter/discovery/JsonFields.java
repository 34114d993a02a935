package io.kvrouter.discovery;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Reads the fields of a discovery value the way serde does: unknown fields are ignored, a missing
 * required one fails naming it, integers are read exactly (a u64 never passes through a double).
 * {@code where} names the key and the enclosing field for the message.
 */
final class JsonFields {
  private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  private JsonFields() {}

  static JsonNode required(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      throw new DiscoveryFormatException(where + ": missing field '" + field + "'");
    }
    return value;
  }

  static String text(JsonNode node, String field, String where) {
    JsonNode value = required(node, field, where);
    if (!value.isTextual()) {
      throw wrongType(field, where, "a string", value);
    }
    return value.textValue();
  }

  static Optional<String> optionalText(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    if (!value.isTextual()) {
      throw wrongType(field, where, "a string", value);
    }
    return Optional.of(value.textValue());
  }

  /** A u64 field's 64 bits; fails unless it is an integer from 0 to 2^64-1. */
  static long u64(JsonNode node, String field, String where) {
    return u64Value(required(node, field, where), field, where);
  }

  static OptionalLong optionalU64(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    return value == null || value.isNull()
        ? OptionalLong.empty()
        : OptionalLong.of(u64Value(value, field, where));
  }

  static int u32(JsonNode node, String field, String where) {
    return u32Value(required(node, field, where), field, where);
  }

  static OptionalInt optionalU32(JsonNode node, String field, String where) {
    JsonNode value = node.get(field);
    return value == null || value.isNull()
        ? OptionalInt.empty()
        : OptionalInt.of(u32Value(value, field, where));
  }

  static int u32OrDefault(JsonNode node, String field, String where, int fallback) {
    OptionalInt value = optionalU32(node, field, where);
    return value.orElse(fallback);
  }

  static boolean boolOrDefault(JsonNode node, String field, String where, boolean fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw wrongType(field, where, "a boolean", value);
    }
    return value.booleanValue();
  }

  private static long u64Value(JsonNode value, String field, String where) {
    if (!value.isIntegralNumber()) {
      throw wrongType(field, where, "an integer from 0 to 18446744073709551615", value);
    }
    BigInteger big = value.bigIntegerValue();
    if (big.signum() < 0 || big.compareTo(U64_MAX) > 0) {
      throw wrongType(field, where, "an integer from 0 to 18446744073709551615", value);
    }
    return big.longValue();
  }

  private static int u32Value(JsonNode value, String field, String where) {
    long v = u64Value(value, field, where);
    if (v < 0 || v > 0xFFFF_FFFFL) {
      throw wrongType(field, where, "an integer from 0 to 4294967295", value);
    }
    if (v > Integer.MAX_VALUE) {
      throw wrongType(field, where, "an integer from 0 to 2147483647", value);
    }
    return (int) v;
  }

  private static DiscoveryFormatException wrongType(
      String field, String where, String expected, JsonNode value) {
    return new DiscoveryFormatException(
        where + ": field '" + field + "' must be " + expected + ", not " + value);
  }
}
