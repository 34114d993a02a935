package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.core.http.StreamResponse;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.testing.TestCertificates;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The router's HTTP server over TLS ({@code --tls-cert-path}, {@code --tls-key-path}), with a
 * certificate authority made here by openssl: the official OpenAI Java client and curl get answers
 * over HTTPS, HTTP/2 and HTTP/1.1 by ALPN; plain HTTP gets nothing; a renewed certificate is served
 * without a restart, and files that do not load leave the one before.
 */
class TlsIT {
  private static final String MODEL = "mock-model";
  private static final String KEY = "sk-tls-0123456789abcdef";

  @TempDir Path dir;

  @Test
  void httpsOnly_h2AndHttp1ByAlpn_andARenewedCertificateWithoutARestart() throws Exception {
    TestCertificates ca = TestCertificates.generate(dir);
    Path cert = Files.copy(ca.serverCert(), dir.resolve("tls.pem"));
    Path key = Files.copy(ca.serverKey(), dir.resolve("tls.key"));
    BigInteger firstSerial = TestCertificates.serial(ca.serverCert());
    Map<String, List<String>> flags = new HashMap<>();
    flags.put("mock-workers", List.of("1"));
    flags.put("tls-cert-path", List.of(cert.toString()));
    flags.put("tls-key-path", List.of(key.toString()));
    flags.put("api-key", List.of(KEY));
    try (LogCapture log = LogCapture.attach();
        RouterFixture router = RouterFixture.start(flags)) {
      int port = router.app.httpPort();
      String https = "https://127.0.0.1:" + port;

      OpenAIClient client =
          OpenAIOkHttpClient.builder()
              .baseUrl(https + "/v1")
              .apiKey(KEY)
              .sslSocketFactory(ca.clientContext().getSocketFactory())
              .trustManager(ca.trustManager())
              .maxRetries(0)
              .build();
      ChatCompletionCreateParams hello =
          ChatCompletionCreateParams.builder()
              .model(MODEL)
              .addUserMessage("Say hello.")
              .maxCompletionTokens(16)
              .build();
      String unary =
          client
              .chat()
              .completions()
              .create(hello)
              .choices()
              .get(0)
              .message()
              .content()
              .orElseThrow();
      StringBuilder streamed = new StringBuilder();
      int chunks = 0;
      try (StreamResponse<ChatCompletionChunk> stream =
          client.chat().completions().createStreaming(hello)) {
        for (ChatCompletionChunk chunk :
            (Iterable<ChatCompletionChunk>) stream.stream()::iterator) {
          chunks++;
          chunk.choices().forEach(c -> c.delta().content().ifPresent(streamed::append));
        }
      }
      assertThat(chunks).as("streamed").isGreaterThan(2);
      assertThat(streamed.toString()).isEqualTo(unary);

      assertThat(curl(ca, "--http2", https + "/v1/models")).isEqualTo("2 200");
      assertThat(curl(ca, "--http1.1", https + "/v1/models")).isEqualTo("1.1 200");

      HttpClient java = HttpClient.newBuilder().sslContext(ca.clientContext()).build();
      HttpResponse<String> health =
          java.send(
              HttpRequest.newBuilder(URI.create(https + "/health")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.version()).isEqualTo(HttpClient.Version.HTTP_2);
      // over HTTP/2 too, the OpenAI routes want the key
      HttpResponse<String> noKey =
          java.send(
              HttpRequest.newBuilder(URI.create(https + "/v1/models")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(noKey.version()).isEqualTo(HttpClient.Version.HTTP_2);
      assertThat(noKey.statusCode()).isEqualTo(401);

      // plain HTTP on the TLS port: no answer, the connection is closed
      assertThatThrownBy(
              () ->
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health"))
                              .timeout(Duration.ofSeconds(30))
                              .build(),
                          HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(IOException.class);

      assertThat(servedSerial(ca, port)).isEqualTo(firstSerial);

      // files that do not load: the certificate before stays
      Files.writeString(cert, "not a certificate\n");
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> log.at(Level.WARN).stream().anyMatch(l -> l.contains("do not load")));
      assertThat(servedSerial(ca, port)).isEqualTo(firstSerial);

      // a renewed certificate: served from the next handshake on
      TestCertificates.Issued second = ca.renewServer(dir, "renewed");
      BigInteger secondSerial = second.serial();
      assertThat(secondSerial).isNotEqualTo(firstSerial);
      Files.copy(second.key(), key, StandardCopyOption.REPLACE_EXISTING);
      Files.copy(second.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> servedSerial(ca, port).equals(secondSerial));
      assertThat(curl(ca, "--http2", https + "/v1/models")).isEqualTo("2 200");
    }
  }

  /** The serial number of the certificate a new handshake with the router gets. */
  private static BigInteger servedSerial(TestCertificates ca, int port) throws Exception {
    SSLSocketFactory factory = ca.clientContext().getSocketFactory();
    try (SSLSocket socket = (SSLSocket) factory.createSocket("127.0.0.1", port)) {
      socket.startHandshake();
      return ((java.security.cert.X509Certificate) socket.getSession().getPeerCertificates()[0])
          .getSerialNumber();
    }
  }

  /** curl's "HTTP_VERSION STATUS" for {@code url}, trusting the test authority. */
  private static String curl(TestCertificates ca, String version, String url) throws Exception {
    Process curl =
        new ProcessBuilder(
                "curl",
                "-sS",
                version,
                "--cacert",
                ca.ca().toString(),
                "-o",
                "/dev/null",
                "-H",
                "Authorization: Bearer " + KEY,
                "-w",
                "%{http_version} %{http_code}",
                url)
            .redirectErrorStream(true)
            .start();
    String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return out.trim();
  }
}
