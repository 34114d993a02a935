package io.kvrouter.frontend;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * Reads a JSON document into Vert.x's {@link JsonObject} and {@link JsonArray} the way Vert.x's own
 * codec does, except that an array holding only integers of the {@code int} range is kept as an
 * {@code int[]} (read-only) rather than as one {@link Integer} object per element. A prompt of
 * millions of token ids then takes 4 bytes an id instead of about 20, and the garbage collector has
 * millions fewer objects to copy: with several such bodies in flight, those copies were long enough
 * to stall every thread, event loops included.
 */
final class CompactJsonReader {
  private CompactJsonReader() {}

  /**
   * The value of the whole document: a {@link JsonObject}, {@link JsonArray}, string, number,
   * boolean or null.
   *
   * @throws IOException when the document is not valid JSON, or has more after its value
   */
  static Object read(JsonParser parser) throws IOException {
    Object value = value(parser, parser.nextToken());
    if (parser.nextToken() != null) {
      throw new IOException("Unexpected content after the JSON value");
    }
    return value;
  }

  private static Object value(JsonParser parser, JsonToken token) throws IOException {
    if (token == null) {
      throw new IOException("No content");
    }
    return switch (token) {
      case START_OBJECT -> object(parser);
      case START_ARRAY -> array(parser);
      case VALUE_STRING -> parser.getText();
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> parser.getNumberValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> throw new IOException("Unexpected token " + token);
    };
  }

  private static JsonObject object(JsonParser parser) throws IOException {
    Map<String, Object> fields = new LinkedHashMap<>();
    for (JsonToken token = parser.nextToken();
        token != JsonToken.END_OBJECT;
        token = parser.nextToken()) {
      String name = parser.currentName();
      fields.put(name, value(parser, parser.nextToken()));
    }
    return new JsonObject(fields);
  }

  /** Ints are gathered unboxed until an element that is not one turns the array into a list. */
  private static JsonArray array(JsonParser parser) throws IOException {
    int[] ints = new int[16];
    int size = 0;
    JsonToken token = parser.nextToken();
    while (token == JsonToken.VALUE_NUMBER_INT
        && parser.getNumberType() == JsonParser.NumberType.INT) {
      if (size == ints.length) {
        ints = Arrays.copyOf(ints, ints.length * 2);
      }
      ints[size++] = parser.getIntValue();
      token = parser.nextToken();
    }
    if (token == JsonToken.END_ARRAY) {
      return new JsonArray(new IntList(ints, size));
    }
    List<Object> items = new ArrayList<>(size + 16);
    for (int i = 0; i < size; i++) {
      items.add(ints[i]);
    }
    for (; token != JsonToken.END_ARRAY; token = parser.nextToken()) {
      items.add(value(parser, token));
    }
    return new JsonArray(items);
  }

  /** An array of ints seen as a read-only list of {@link Integer}, boxed as they are read. */
  private static final class IntList extends AbstractList<Object> implements RandomAccess {
    private final int[] ints;
    private final int size;

    /** The first {@code size} of {@code ints}. */
    IntList(int[] ints, int size) {
      this.ints = ints;
      this.size = size;
    }

    @Override
    public Object get(int index) {
      java.util.Objects.checkIndex(index, size);
      return ints[index];
    }

    @Override
    public int size() {
      return size;
    }
  }
}
