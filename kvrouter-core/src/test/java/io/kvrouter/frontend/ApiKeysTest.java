package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ApiKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which key a presented one is, and how it is read from its header. */
class ApiKeysTest {
  private final ApiKeys keys =
      ApiKeys.of(
          List.of(
              new ApiKey("team-a", "sk-aaaaaaaaaaaaaaaa"), ApiKey.unnamed("sk-bbbbbbbbbbbbbbbb")));

  @Test
  void aPresentedKey_isKnownByItsName_andAnyOtherIsNone() {
    assertThat(keys.nameOf("sk-aaaaaaaaaaaaaaaa")).contains("team-a");
    assertThat(keys.nameOf("sk-bbbbbbbbbbbbbbbb"))
        .contains(ApiKey.unnamed("sk-bbbbbbbbbbbbbbbb").name());
    assertThat(keys.nameOf("sk-aaa")).as("a prefix").isEmpty();
    assertThat(keys.nameOf("sk-aaaaaaaaaaaaaaaaaa")).as("longer").isEmpty();
    assertThat(keys.nameOf("")).isEmpty();
    assertThat(ApiKeys.NONE.nameOf("sk-aaaaaaaaaaaaaaaa")).isEmpty();
    assertThat(keys.names())
        .containsExactly("team-a", ApiKey.unnamed("sk-bbbbbbbbbbbbbbbb").name());
  }

  @Test
  void theBearerToken_isReadInAnyCaseOfTheScheme_andNothingElseIsOne() {
    assertThat(ApiKeyAuth.bearer("Bearer sk-aaaaaaaaaaaaaaaa")).contains("sk-aaaaaaaaaaaaaaaa");
    assertThat(ApiKeyAuth.bearer("bearer   sk-aaaaaaaaaaaaaaaa  ")).contains("sk-aaaaaaaaaaaaaaaa");
    assertThat(ApiKeyAuth.bearer("BEARER sk-aaaaaaaaaaaaaaaa")).contains("sk-aaaaaaaaaaaaaaaa");
    assertThat(ApiKeyAuth.bearer(null)).isEmpty();
    assertThat(ApiKeyAuth.bearer("Bearer")).isEmpty();
    assertThat(ApiKeyAuth.bearer("Bearer ")).isEmpty();
    assertThat(ApiKeyAuth.bearer("Basic c2stYWFhYQ==")).isEmpty();
    assertThat(ApiKeyAuth.bearer("sk-aaaaaaaaaaaaaaaa")).isEmpty();
    assertThat(ApiKeyAuth.bearer("Bearer sk-\u00e9aaaaaaaaaaaaaa")).as("not ASCII").isEmpty();
  }
}
