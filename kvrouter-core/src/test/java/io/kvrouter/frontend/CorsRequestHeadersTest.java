package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CorsRequestHeadersTest {

  @Test
  void theHeadersAnSdkAsksFor_areGranted_afterTheOnesAlwaysGranted() {
    assertThat(
            CorsRequestHeaders.allowed(
                "authorization, content-type, x-stainless-os, x-stainless-retry-count"))
        .isEqualTo(
            "Authorization, Content-Type, X-Request-Id, x-stainless-os, x-stainless-retry-count");
  }

  @Test
  void authorization_isGrantedEvenUnasked() {
    assertThat(CorsRequestHeaders.allowed("content-type")).isEqualTo(CorsRequestHeaders.ALWAYS);
    assertThat(CorsRequestHeaders.allowed(null)).isEqualTo(CorsRequestHeaders.ALWAYS);
    assertThat(CorsRequestHeaders.allowed(" ")).isEqualTo(CorsRequestHeaders.ALWAYS);
  }

  @Test
  void emptyItemsAndRepeats_areDropped() {
    assertThat(CorsRequestHeaders.allowed("X-Stainless-Arch,,x-stainless-arch , AUTHORIZATION"))
        .isEqualTo("Authorization, Content-Type, X-Request-Id, X-Stainless-Arch");
  }

  @Test
  void aNameThatIsNoToken_orAnOverlongList_isNotEchoed() {
    for (String requested :
        new String[] {
          "x-a, x b",
          "x-a\r\nSet-Cookie: a=b",
          "x-a, x:b",
          "x-a, \"quoted\"",
          "x-é",
          "x-" + "a".repeat(CorsRequestHeaders.MAX_CHARS)
        }) {
      assertThat(CorsRequestHeaders.allowed(requested))
          .as(requested)
          .isEqualTo(CorsRequestHeaders.ALWAYS);
    }
    String longest = "x-" + "a".repeat(CorsRequestHeaders.MAX_CHARS - 2);
    assertThat(CorsRequestHeaders.allowed(longest)).endsWith(", " + longest);
  }
}
