package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ApiKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which key a presented one is, and how it is read from its header. */
class ApiKeysTest {
  private final ApiKeys keys =
      ApiKeys.of(List.of(new ApiKey("team-a", "sk-aaaa"), ApiKey.unnamed("sk-bbbb")));

  @Test
  void aPresentedKey_isKnownByItsName_andAnyOtherIsNone() {
    assertThat(keys.nameOf("sk-aaaa")).contains("team-a");
    assertThat(keys.nameOf("sk-bbbb")).contains(ApiKey.unnamed("sk-bbbb").name());
    assertThat(keys.nameOf("sk-aaa")).as("a prefix").isEmpty();
    assertThat(keys.nameOf("sk-aaaaa")).as("longer").isEmpty();
    assertThat(keys.nameOf("")).isEmpty();
    assertThat(ApiKeys.NONE.nameOf("sk-aaaa")).isEmpty();
    assertThat(keys.names()).containsExactly("team-a", ApiKey.unnamed("sk-bbbb").name());
  }

  @Test
  void theBearerToken_isReadInAnyCaseOfTheScheme_andNothingElseIsOne() {
    assertThat(ApiKeyAuth.bearer("Bearer sk-aaaa")).contains("sk-aaaa");
    assertThat(ApiKeyAuth.bearer("bearer   sk-aaaa  ")).contains("sk-aaaa");
    assertThat(ApiKeyAuth.bearer("BEARER sk-aaaa")).contains("sk-aaaa");
    assertThat(ApiKeyAuth.bearer(null)).isEmpty();
    assertThat(ApiKeyAuth.bearer("Bearer")).isEmpty();
    assertThat(ApiKeyAuth.bearer("Bearer ")).isEmpty();
    assertThat(ApiKeyAuth.bearer("Basic c2stYWFhYQ==")).isEmpty();
    assertThat(ApiKeyAuth.bearer("sk-aaaa")).isEmpty();
  }
}
