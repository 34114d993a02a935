package io.kvrouter.protocol;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * Helpers for readers that take a per-token JSON message apart with Jackson's streaming parser when
 * it has its usual shape, and hand anything else to the slower, general reader they replace, which
 * then decides (and words any error) as before. A reader calls {@link #expect} where the usual
 * shape could end and catches {@link OffShape} to fall back.
 */
public final class UsualShape {

  /** The message left its usual shape: read it again with the general reader. */
  public static final class OffShape extends Exception {
    private OffShape() {
      super(null, null, false, false);
    }
  }

  private static final OffShape OFF_SHAPE = new OffShape();

  private UsualShape() {}

  /** Goes on only while the message keeps its usual shape. */
  public static void expect(boolean usual) throws OffShape {
    if (!usual) {
      throw OFF_SHAPE;
    }
  }

  /** An array of plain ints (no fractions, strings, nulls or values beyond {@code int}). */
  public static int[] ints(JsonParser p, JsonToken start) throws IOException, OffShape {
    expect(start == JsonToken.START_ARRAY);
    int[] ids = new int[8];
    int n = 0;
    JsonToken t;
    while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
      if (n == ids.length) {
        ids = Arrays.copyOf(ids, n * 2);
      }
      ids[n++] = plainInt(p, t);
    }
    return Arrays.copyOf(ids, n);
  }

  public static int plainInt(JsonParser p, JsonToken value) throws IOException, OffShape {
    expect(value == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.INT);
    return p.getIntValue();
  }

  /** A string or null. */
  public static String string(JsonParser p, JsonToken value) throws IOException, OffShape {
    if (value == JsonToken.VALUE_NULL) {
      return null;
    }
    expect(value == JsonToken.VALUE_STRING);
    return p.getText();
  }
}
