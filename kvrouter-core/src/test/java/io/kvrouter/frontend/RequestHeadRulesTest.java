package io.kvrouter.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import org.junit.jupiter.api.Test;

/** RFC 9112's rules for a request head, one by one. */
class RequestHeadRulesTest {
  private static HttpRequest request(HttpVersion version, String... headers) {
    HttpRequest request = new DefaultHttpRequest(version, HttpMethod.POST, "/v1/completions");
    for (int i = 0; i < headers.length; i += 2) {
      request.headers().add(headers[i], headers[i + 1]);
    }
    return request;
  }

  private static ErrorResponses.ApiError refusal(HttpRequest request) {
    return catchThrowableOfType(() -> RequestHeadRules.check(request), RequestRejection.class)
        .error();
  }

  @Test
  void wellFormedHeads_pass() {
    assertThatCode(
            () -> {
              RequestHeadRules.check(request(HttpVersion.HTTP_1_1, "Host", "x"));
              RequestHeadRules.check(
                  request(HttpVersion.HTTP_1_1, "Host", "x", "Content-Length", "5"));
              RequestHeadRules.check(
                  request(HttpVersion.HTTP_1_1, "Host", "x", "Transfer-Encoding", "Chunked"));
              RequestHeadRules.check(request(HttpVersion.HTTP_1_0));
            })
        .doesNotThrowAnyException();
  }

  @Test
  void http11WithoutHost_is400() {
    ErrorResponses.ApiError error = refusal(request(HttpVersion.HTTP_1_1));
    assertThat(error.status()).isEqualTo(400);
    assertThat(error.code()).isEqualTo("missing_host");
  }

  @Test
  void twoHosts_are400InEitherVersion() {
    assertThat(refusal(request(HttpVersion.HTTP_1_0, "Host", "a", "Host", "b")).code())
        .isEqualTo("duplicate_host");
    assertThat(refusal(request(HttpVersion.HTTP_1_1, "Host", "a", "Host", "a")).code())
        .isEqualTo("duplicate_host");
  }

  @Test
  void contentLengthWithTransferEncoding_is400() {
    ErrorResponses.ApiError error =
        refusal(
            request(
                HttpVersion.HTTP_1_1,
                "Host",
                "x",
                "Content-Length",
                "4",
                "Transfer-Encoding",
                "chunked"));
    assertThat(error.status()).isEqualTo(400);
    assertThat(error.code()).isEqualTo("ambiguous_framing");
  }

  @Test
  void transferEncodingNotEndingInChunkedOnce_is400() {
    for (String codings : new String[] {"gzip", "chunked, gzip", "chunked, chunked", ""}) {
      ErrorResponses.ApiError error =
          refusal(request(HttpVersion.HTTP_1_1, "Host", "x", "Transfer-Encoding", codings));
      assertThat(error.status()).as(codings).isEqualTo(400);
      assertThat(error.code()).as(codings).isEqualTo("invalid_transfer_encoding");
    }
  }

  @Test
  void transferEncodingSplitOverTwoHeaders_isReadAsOneList() {
    ErrorResponses.ApiError error =
        refusal(
            request(
                HttpVersion.HTTP_1_1,
                "Host",
                "x",
                "Transfer-Encoding",
                "chunked",
                "Transfer-Encoding",
                "identity"));
    assertThat(error.code()).isEqualTo("invalid_transfer_encoding");
  }

  @Test
  void anotherCodingBeforeChunked_is501() {
    ErrorResponses.ApiError error =
        refusal(request(HttpVersion.HTTP_1_1, "Host", "x", "Transfer-Encoding", "gzip, chunked"));
    assertThat(error.status()).isEqualTo(501);
    assertThat(error.code()).isEqualTo("unsupported_transfer_encoding");
  }

  @Test
  void transferEncodingInHttp10_is400() {
    ErrorResponses.ApiError error =
        refusal(request(HttpVersion.HTTP_1_0, "Transfer-Encoding", "chunked"));
    assertThat(error.status()).isEqualTo(400);
    assertThat(error.code()).isEqualTo("invalid_transfer_encoding");
  }
}
