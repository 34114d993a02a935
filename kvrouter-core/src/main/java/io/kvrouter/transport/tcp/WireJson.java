package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;

/**
 * The JSON codec of the wire messages. Unknown fields are ignored, since newer Dynamo releases add
 * optional fields (metadata, timestamps, typed errors) that older readers skip. Failures surface as
 * {@link TcpCodecException}.
 */
final class WireJson {

  static final ObjectMapper MAPPER =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private WireJson() {}

  static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new TcpCodecException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  static Buffer write(Object value) {
    return Buffer.buffer(bytes(value));
  }

  static String string(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new TcpCodecException("cannot encode " + value.getClass().getSimpleName(), e);
    }
  }

  /** Reads one {@code type} from {@code json}; {@code what} names it in the error message. */
  static <T> T read(Buffer json, Class<T> type, String what) {
    return read(json.getBytes(), type, what);
  }

  /** Reads one value of a generic {@code type} from {@code json}. */
  static <T> T read(Buffer json, JavaType type, String what) {
    try {
      return check(MAPPER.readValue(json.getBytes(), type), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  /** Reads one value of {@code type} from a tree (a msgpack payload, translated). */
  static <T> T read(JsonNode tree, JavaType type, String what) {
    try {
      return check(MAPPER.treeToValue(tree, type), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  static <T> T read(String json, Class<T> type, String what) {
    try {
      return check(MAPPER.readValue(json, type), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  private static <T> T read(byte[] json, Class<T> type, String what) {
    try {
      return check(MAPPER.readValue(json, type), what);
    } catch (IOException e) {
      throw malformed(what, e);
    }
  }

  private static TcpCodecException malformed(String what, IOException e) {
    String detail =
        e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
    return new TcpCodecException("malformed " + what + ": " + detail, e);
  }

  private static <T> T check(T value, String what) {
    if (value == null) {
      throw new TcpCodecException("malformed " + what + ": null");
    }
    return value;
  }
}
