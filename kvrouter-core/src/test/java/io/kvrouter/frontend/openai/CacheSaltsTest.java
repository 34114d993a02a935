package io.kvrouter.frontend.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The cache salt of a request body: vLLM's top-level field and Dynamo's {@code nvext} one. */
class CacheSaltsTest {
  private static JsonObject chat(String extra) {
    return new JsonObject(
        "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]," + extra + "}");
  }

  private static JsonObject completion(String extra) {
    return new JsonObject("{\"model\":\"m\",\"prompt\":\"hi\"," + extra + "}");
  }

  private static void refused(String extra, String param, String message) {
    for (JsonObject body : new JsonObject[] {chat(extra), completion(extra)}) {
      assertThatThrownBy(
              () ->
                  (body.containsKey("messages")
                          ? OpenAiRequests.chat(body)
                          : OpenAiRequests.completion(body))
                      .cacheSalt())
          .as(extra)
          .isInstanceOf(InvalidRequestException.class)
          .hasMessageContaining(message)
          .extracting(e -> ((InvalidRequestException) e).param())
          .isEqualTo(param);
    }
  }

  @Test
  void topLevelCacheSalt_isReadOnChatAndCompletions() {
    assertThat(OpenAiRequests.chat(chat("\"cache_salt\":\"s1\"")).cacheSalt()).isEqualTo("s1");
    assertThat(OpenAiRequests.completion(completion("\"cache_salt\":\"s1\"")).cacheSalt())
        .isEqualTo("s1");
    assertThat(OpenAiRequests.chat(chat("\"n\":1")).cacheSalt()).isNull();
    assertThat(OpenAiRequests.chat(chat("\"cache_salt\":null")).cacheSalt()).isNull();
  }

  @Test
  void nvextCacheSalt_winsOverTheTopLevelField() {
    assertThat(
            OpenAiRequests.chat(chat("\"cache_salt\":\"top\",\"nvext\":{\"cache_salt\":\"ext\"}"))
                .cacheSalt())
        .isEqualTo("ext");
    assertThat(
            OpenAiRequests.completion(completion("\"nvext\":{\"cache_salt\":\"ext\"}")).cacheSalt())
        .isEqualTo("ext");
    assertThat(OpenAiRequests.chat(chat("\"cache_salt\":\"top\",\"nvext\":{}")).cacheSalt())
        .isEqualTo("top");
  }

  @Test
  void theSaltGoesIntoEveryGeneration() {
    OpenAiRequest request =
        OpenAiRequests.completion(
            new JsonObject("{\"model\":\"m\",\"prompt\":[\"a\",\"b\"],\"cache_salt\":\"s\"}"));
    assertThat(request.toGenerations("id"))
        .allSatisfy(g -> assertThat(g.cacheSalt()).isEqualTo("s"));
    assertThat(request.withCacheSalt("key/k/s").toGeneration("id").cacheSalt())
        .isEqualTo("key/k/s");
  }

  @Test
  void badSalts_areRefusedNamingTheField() {
    refused("\"cache_salt\":\"\"", "cache_salt", "'cache_salt' must be a non-empty string");
    refused("\"cache_salt\":7", "cache_salt", "'cache_salt' must be a string");
    refused("\"cache_salt\":[\"a\"]", "cache_salt", "'cache_salt' must be a string");
    refused(
        "\"cache_salt\":\"" + "x".repeat(CacheSalts.MAX_LENGTH + 1) + "\"",
        "cache_salt",
        "'cache_salt' must be at most 512 characters, got 513");
    refused(
        "\"nvext\":{\"cache_salt\":\"\"}",
        "nvext.cache_salt",
        "'nvext.cache_salt' must be a non-empty string");
    refused(
        "\"nvext\":{\"cache_salt\":true}",
        "nvext.cache_salt",
        "'nvext.cache_salt' must be a string");
    refused("\"nvext\":\"x\"", "nvext", "'nvext' must be an object");
    refused(
        "\"nvext\":{\"backend_instance_id\":1}",
        "nvext.backend_instance_id",
        "Unrecognized request argument supplied: nvext.backend_instance_id");
    // a bad top-level salt is refused even beside a good nvext one
    refused(
        "\"cache_salt\":\"\",\"nvext\":{\"cache_salt\":\"ok\"}",
        "cache_salt",
        "must be a non-empty string");
  }

  @Test
  void theLongestSalt_isAccepted() {
    String longest = "y".repeat(CacheSalts.MAX_LENGTH);
    assertThat(OpenAiRequests.chat(chat("\"cache_salt\":\"" + longest + "\"")).cacheSalt())
        .isEqualTo(longest);
    assertThat(CacheSalts.checked("x-tenant-id", longest)).isEqualTo(longest);
    assertThatThrownBy(() -> CacheSalts.checked("x-tenant-id", longest + "y"))
        .isInstanceOf(InvalidRequestException.class)
        .extracting(e -> ((InvalidRequestException) e).param())
        .isEqualTo("x-tenant-id");
  }
}
