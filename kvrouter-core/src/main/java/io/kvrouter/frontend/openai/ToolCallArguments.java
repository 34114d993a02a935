package io.kvrouter.frontend.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * An assistant tool call's {@code arguments} as vLLM hands them to the chat template: the API's
 * JSON string parsed with Python's {@code json.loads}, and an empty object where that fails ({@code
 * _postprocess_messages} in {@code vllm/entrypoints/chat_utils.py}, read at commit {@code
 * 001eadcf295d90aa0664963cd6a9d93f38a2f3da}). Models write broken JSON often enough that vLLM
 * renders the conversation anyway rather than refuse it, and the router must send the same prompt.
 *
 * <p>Python's parser, not strict JSON: {@code NaN}, {@code Infinity} and {@code -Infinity} are
 * numbers; integers keep every digit (a {@link BigInteger} beyond 64 bits); a repeated key keeps
 * its first place and its last value; anything else that is not one JSON value, surrounding
 * whitespace aside, is not JSON. One difference is an error, not an empty object, as in vLLM: an
 * integer of more than 4300 digits, which Python refuses with a ValueError its caller does not
 * catch.
 *
 * <p>Where the router is more lenient than vLLM (whose request model requires a string): arguments
 * that are absent or null are an empty object, and arguments sent as a JSON object are used as they
 * are.
 */
final class ToolCallArguments {
  private ToolCallArguments() {}

  /** Python's {@code sys.get_int_max_str_digits()} default. */
  private static final int MAX_INT_DIGITS = 4300;

  /** The non-numbers Python's {@code json.loads} accepts (Jackson also takes INF, +Infinity...). */
  private static final Set<String> NON_NUMBERS = Set.of("NaN", "Infinity", "-Infinity");

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
          // a little over Python's limit on integer digits, so that limit is the one that shows
          // (numbers longer still, and nesting deeper than 1000, fail as in Python)
          .streamReadConstraints(
              StreamReadConstraints.builder().maxNumberLength(MAX_INT_DIGITS + 100).build())
          .build();

  /** Thrown where Python's {@code json.loads} raises {@code JSONDecodeError}. */
  private static final class NotJson extends Exception {
    NotJson() {
      super(null, null, false, false);
    }
  }

  /** The arguments as the template sees them. */
  static Object read(Object value, String param) {
    if (value == null) {
      return new LinkedHashMap<String, Object>();
    }
    if (value instanceof JsonObject object) {
      return JsonValues.plainMap(object);
    }
    if (!(value instanceof String text)) {
      throw JsonFields.typeError(param, "a JSON string");
    }
    try {
      return loads(text, param);
    } catch (NotJson e) {
      return new LinkedHashMap<String, Object>();
    }
  }

  private static Object loads(String text, String param) throws NotJson {
    try (JsonParser parser = FACTORY.createParser(text)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new NotJson();
      }
      Object value = value(parser, first, param);
      if (parser.nextToken() != null) {
        throw new NotJson();
      }
      return value;
    } catch (StreamConstraintsException e) {
      // Python fails these too (a ValueError or a RecursionError, which vLLM does not catch)
      throw new InvalidRequestException(
          "'" + param + "' cannot be read: " + e.getOriginalMessage(), param);
    } catch (IOException e) {
      throw new NotJson();
    }
  }

  private static Object value(JsonParser parser, JsonToken token, String param)
      throws IOException, NotJson {
    switch (token) {
      case START_OBJECT:
        Map<String, Object> fields = new LinkedHashMap<>();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_OBJECT; t = parser.nextToken()) {
          String name = parser.currentName();
          fields.put(name, value(parser, parser.nextToken(), param));
        }
        return fields;
      case START_ARRAY:
        List<Object> items = new ArrayList<>();
        for (JsonToken t = parser.nextToken(); t != JsonToken.END_ARRAY; t = parser.nextToken()) {
          items.add(value(parser, t, param));
        }
        return items;
      case VALUE_STRING:
        return parser.getText();
      case VALUE_NUMBER_INT:
        if (parser.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
          return parser.getLongValue();
        }
        BigInteger big = parser.getBigIntegerValue();
        if (big.abs().toString().length() > MAX_INT_DIGITS) {
          throw tooManyDigits(param);
        }
        return big;
      case VALUE_NUMBER_FLOAT:
        String text = parser.getText();
        if (Character.isLetter(text.charAt(text.length() - 1)) && !NON_NUMBERS.contains(text)) {
          throw new NotJson();
        }
        return parser.getDoubleValue();
      case VALUE_TRUE:
        return Boolean.TRUE;
      case VALUE_FALSE:
        return Boolean.FALSE;
      case VALUE_NULL:
        return null;
      default:
        throw new NotJson();
    }
  }

  private static InvalidRequestException tooManyDigits(String param) {
    return new InvalidRequestException(
        "'"
            + param
            + "' holds an integer of more than "
            + MAX_INT_DIGITS
            + " digits: Exceeds the limit ("
            + MAX_INT_DIGITS
            + " digits) for integer string conversion",
        param);
  }
}
