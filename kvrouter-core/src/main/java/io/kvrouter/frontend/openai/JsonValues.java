package io.kvrouter.frontend.openai;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Request JSON as plain Java values (maps in field order, lists), for a chat template. */
final class JsonValues {
  private JsonValues() {}

  static Object plain(Object value) {
    if (value instanceof JsonObject object) {
      return plain(object.getMap());
    }
    if (value instanceof JsonArray array) {
      return plain(array.getList());
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> out = new LinkedHashMap<>();
      map.forEach((k, v) -> out.put((String) k, plain(v)));
      return out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(v -> out.add(plain(v)));
      return out;
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> plainMap(JsonObject object) {
    return (Map<String, Object>) plain(object);
  }
}
