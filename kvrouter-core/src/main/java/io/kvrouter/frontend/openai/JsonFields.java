package io.kvrouter.frontend.openai;

import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Typed reads of request fields that fail with a 400 naming the field and the expected type,
 * instead of a {@code ClassCastException}. A JSON {@code null} counts as absent.
 */
final class JsonFields {
  private final JsonObject json;
  private final String path;

  JsonFields(JsonObject json) {
    this(json, "");
  }

  /** Fields of an object nested at {@code path} (such as {@code messages[2]}), named under it. */
  JsonFields(JsonObject json, String path) {
    this.json = json;
    this.path = path.isEmpty() ? "" : path + ".";
  }

  /** The field's name as errors give it: with the path of the object it is in. */
  String param(String name) {
    return path + name;
  }

  /** Rejects any field not in {@code known}, naming it. */
  void rejectUnknown(Set<String> known) {
    for (String name : json.fieldNames()) {
      if (!known.contains(name)) {
        throw new InvalidRequestException(
            "Unrecognized request argument supplied: " + param(name), param(name));
      }
    }
  }

  /**
   * The {@code function} object of an OpenAI {@code {"type": "function", "function": {...}}} entry
   * (a tool, or a tool call), with only {@code fields} allowed in it (any, for null).
   */
  JsonFields function(Set<String> fields) {
    if (has("type") && !"function".equals(string("type"))) {
      throw new InvalidRequestException(
          "'" + param("type") + "' must be \"function\"", param("type"));
    }
    JsonObject function = object("function");
    if (function == null) {
      throw new InvalidRequestException(
          "'" + param("function") + "' is required", param("function"));
    }
    JsonFields f = new JsonFields(function, param("function"));
    if (fields != null) {
      f.rejectUnknown(fields);
    }
    return f;
  }

  /** The names of the fields, in the order the request gives them. */
  Iterable<String> names() {
    return json.fieldNames();
  }

  /** The field's value as it is, or null. */
  Object raw(String name) {
    return json.getValue(name);
  }

  boolean has(String name) {
    return json.getValue(name) != null;
  }

  String string(String name) {
    Object value = json.getValue(name);
    if (value == null) {
      throw new InvalidRequestException("'" + param(name) + "' is required", param(name));
    }
    if (!(value instanceof String s)) {
      throw typeError(param(name), "a string");
    }
    return s;
  }

  Boolean bool(String name) {
    Object value = json.getValue(name);
    if (value == null || value instanceof Boolean) {
      return (Boolean) value;
    }
    throw typeError(param(name), "a boolean");
  }

  boolean bool(String name, boolean fallback) {
    Boolean value = bool(name);
    return value == null ? fallback : value;
  }

  Double number(String name, double min, double max) {
    Object value = json.getValue(name);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Number n)) {
      throw typeError(param(name), "a number");
    }
    double d = n.doubleValue();
    if (!(d >= min && d <= max)) {
      throw new InvalidRequestException(
          "Validation: '"
              + name
              + "' must be between "
              + fmt(min)
              + " and "
              + fmt(max)
              + ", got "
              + value,
          name);
    }
    return d;
  }

  Integer integer(String name, long min, long max) {
    Long value = longValue(name, min, max);
    return value == null ? null : value.intValue();
  }

  Long longValue(String name, long min, long max) {
    Object value = json.getValue(name);
    if (value == null) {
      return null;
    }
    if (!(value instanceof Integer || value instanceof Long)) {
      throw typeError(param(name), "an integer");
    }
    long l = ((Number) value).longValue();
    if (l < min || l > max) {
      throw new InvalidRequestException(
          "Validation: '" + name + "' must be between " + min + " and " + max + ", got " + l, name);
    }
    return l;
  }

  JsonObject object(String name) {
    Object value = json.getValue(name);
    if (value == null || value instanceof JsonObject) {
      return (JsonObject) value;
    }
    throw typeError(param(name), "an object");
  }

  JsonArray array(String name) {
    Object value = json.getValue(name);
    if (value == null || value instanceof JsonArray) {
      return (JsonArray) value;
    }
    throw typeError(param(name), "an array");
  }

  /** A string or an array of strings (OpenAI's {@code stop}), as a list. */
  List<String> stringOrStrings(String name) {
    Object value = json.getValue(name);
    if (value == null) {
      return List.of();
    }
    if (value instanceof String s) {
      return List.of(s);
    }
    if (value instanceof JsonArray array) {
      List<String> out = new ArrayList<>(array.size());
      for (Object item : array) {
        if (!(item instanceof String s)) {
          throw typeError(param(name), "a string or an array of strings");
        }
        out.add(s);
      }
      return out;
    }
    throw typeError(param(name), "a string or an array of strings");
  }

  List<Integer> integers(String name) {
    JsonArray array = array(name);
    if (array == null) {
      return List.of();
    }
    List<Integer> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (!(item instanceof Integer i) || i < 0) {
        throw typeError(param(name), "an array of non-negative integers");
      }
      out.add(i);
    }
    return out;
  }

  static InvalidRequestException typeError(String name, String expected) {
    return new InvalidRequestException("'" + name + "' must be " + expected, name);
  }

  private static String fmt(double d) {
    return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
  }
}
