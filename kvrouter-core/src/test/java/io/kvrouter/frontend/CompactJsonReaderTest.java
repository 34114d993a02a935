package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompactJsonReaderTest {
  private static final JsonFactory FACTORY = new JsonFactory();

  private static Object read(String json) throws IOException {
    try (JsonParser parser = FACTORY.createParser(json)) {
      return CompactJsonReader.read(parser);
    }
  }

  @Test
  void readsWhatVertxsCodecReads() throws IOException {
    for (String json :
        List.of(
            "{\"model\":\"m\",\"prompt\":[1,2,3],\"n\":null,\"stream\":true,\"t\":0.5}",
            "{\"a\":{\"b\":[{\"c\":[]}, [1, \"x\", 2.5, false]]},\"big\":12345678901}",
            "{\"prompt\":[[1,2],[3],\"text\",[2147483648,1],[-2147483648]]}",
            "{\"messages\":[{\"role\":\"user\",\"content\":\"hi \\u00e9\"}],\"a\":1,\"a\":2}",
            "[]",
            "\"s\"",
            "17")) {
      Object compact = read(json);
      Object vertx = Json.decodeValue(json);
      assertThat(compact).as(json).isEqualTo(vertx);
      assertThat(Json.encode(compact)).as(json).isEqualTo(Json.encode(vertx));
    }
  }

  @Test
  void anArrayOfInts_readsAsIntegers_andCannotBeChanged() throws IOException {
    JsonArray ids = ((JsonObject) read("{\"prompt\":[7,0,-3,2147483647]}")).getJsonArray("prompt");
    assertThat(ids.size()).isEqualTo(4);
    assertThat(ids.getValue(0)).isEqualTo(7);
    assertThat(ids.getInteger(3)).isEqualTo(Integer.MAX_VALUE);
    assertThat(ids.getList()).containsExactly(7, 0, -3, Integer.MAX_VALUE);
    assertThatThrownBy(() -> ids.add(1)).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> ids.getValue(4)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void invalidDocuments_fail() {
    for (String json : List.of("", "{", "[1,2", "{\"a\":1} 2", "{\"a\" 1}", "[1,]")) {
      assertThatThrownBy(() -> read(json)).as(json).isInstanceOf(IOException.class);
    }
  }
}
