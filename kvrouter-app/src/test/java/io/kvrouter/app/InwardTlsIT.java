package io.kvrouter.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.openai.client.OpenAIClient;
import com.openai.core.http.StreamResponse;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletionChunk;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import io.kvrouter.testing.NatsServerProcess;
import io.kvrouter.testing.TestCertificates;
import io.kvrouter.testing.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The inward hops encrypted and authenticated, between a router and a simulated worker process:
 * mutual TLS on Dynamo's TCP request plane (requests one way, response streams the other), and
 * Dynamo's NATS request plane through a nats-server that requires TLS, a client certificate and a
 * password. A router whose client certificate comes from another CA is refused by the worker.
 */
class InwardTlsIT {
  private static final String MODEL = "mock-model";

  @TempDir Path dir;
  private TestCertificates ca;
  private TestCertificates rogue;

  @BeforeEach
  void certificates() throws Exception {
    ca = TestCertificates.generate(dir);
    rogue = TestCertificates.generate(Files.createDirectory(dir.resolve("rogue")));
  }

  /** Both sides of the TCP plane's mutual TLS, as flags; {@code identity} signs the client. */
  private List<String> tcpTls(TestCertificates identity) {
    return List.of(
        "--tcp-tls-cert-path",
        ca.serverCert().toString(),
        "--tcp-tls-key-path",
        ca.serverKey().toString(),
        "--tcp-tls-client-ca-cert-path",
        ca.ca().toString(),
        "--tcp-tls-ca-cert-path",
        ca.ca().toString(),
        "--tcp-tls-client-cert-path",
        identity.clientCert().toString(),
        "--tcp-tls-client-key-path",
        identity.clientKey().toString());
  }

  private static void putFlags(Map<String, List<String>> flags, List<String> args) {
    for (int i = 0; i < args.size(); i += 2) {
      flags.computeIfAbsent(args.get(i).substring(2), k -> new ArrayList<>()).add(args.get(i + 1));
    }
  }

  private static ChatCompletionCreateParams chat() {
    return ChatCompletionCreateParams.builder()
        .model(MODEL)
        .addUserMessage("Hello over TLS")
        .maxCompletionTokens(9)
        .build();
  }

  private static void unaryAndStreamed(OpenAIClient client) {
    String unary =
        client
            .chat()
            .completions()
            .create(chat())
            .choices()
            .get(0)
            .message()
            .content()
            .orElseThrow();
    assertThat(unary).hasSize(9);
    StringBuilder streamed = new StringBuilder();
    try (StreamResponse<ChatCompletionChunk> stream =
        client.chat().completions().createStreaming(chat())) {
      stream.stream()
          .forEach(
              c -> c.choices().forEach(ch -> ch.delta().content().ifPresent(streamed::append)));
    }
    assertThat(streamed).hasSize(9);
  }

  @Test
  void tcpPlane_mutualTlsBothWays_andAForeignClientCertificateIsRefused() throws Exception {
    List<String> workerArgs = new ArrayList<>(List.of("--port", "0"));
    workerArgs.addAll(tcpTls(ca));
    try (WorkerProcess worker = WorkerProcess.start(MODEL, 1, 1, workerArgs)) {
      String spec = "id=w1,address=127.0.0.1:" + worker.port();
      Map<String, List<String>> good = RouterFixture.workers(spec);
      putFlags(good, tcpTls(ca));
      try (RouterFixture router = RouterFixture.start(good)) {
        unaryAndStreamed(OpenAiRounds.client(router));
        assertThat(router.detector.blockedThreads()).isEmpty();
      }

      Map<String, List<String>> foreign = RouterFixture.workers(spec);
      putFlags(foreign, tcpTls(rogue));
      try (RouterFixture router = RouterFixture.start(foreign)) {
        assertThatThrownBy(() -> OpenAiRounds.client(router).chat().completions().create(chat()))
            .isInstanceOf(OpenAIServiceException.class)
            .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isIn(500, 503));
      }

      Map<String, List<String>> plain = RouterFixture.workers(spec);
      try (RouterFixture router = RouterFixture.start(plain)) {
        assertThatThrownBy(() -> OpenAiRounds.client(router).chat().completions().create(chat()))
            .isInstanceOf(OpenAIServiceException.class)
            .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isIn(500, 503));
      }
    }
  }

  @Test
  void httpsEngine_checkedAgainstTheCaBundle_withAClientCertificate() throws Exception {
    try (WorkerProcess vllm =
        WorkerProcess.start(
            MODEL,
            1,
            1,
            List.of(
                "--port",
                "0",
                "--api",
                "openai",
                "--ssl-certfile",
                ca.serverCert().toString(),
                "--ssl-keyfile",
                ca.serverKey().toString(),
                "--ssl-ca-certs",
                ca.ca().toString(),
                "--ssl-cert-reqs",
                "2"))) {
      String spec = "id=v1,url=https://127.0.0.1:" + vllm.port();
      Map<String, List<String>> flags = RouterFixture.workers(spec);
      flags.put("router-mode", new ArrayList<>(List.of("round-robin")));
      flags.put("served-model-name", new ArrayList<>(List.of(MODEL)));
      putFlags(
          flags,
          List.of(
              "--http-worker-ca-cert-path",
              ca.ca().toString(),
              "--http-worker-client-cert-path",
              ca.clientCert().toString(),
              "--http-worker-client-key-path",
              ca.clientKey().toString()));
      try (RouterFixture router = RouterFixture.start(flags)) {
        unaryAndStreamed(OpenAiRounds.client(router));
      }

      // the engine's CA is not one the JVM trusts, and an engine requiring a certificate refuses
      // a router without one
      for (List<String> partial :
          List.of(
              List.<String>of(),
              List.of("--http-worker-ca-cert-path", ca.ca().toString()),
              List.of(
                  "--http-worker-ca-cert-path",
                  ca.ca().toString(),
                  "--http-worker-client-cert-path",
                  rogue.clientCert().toString(),
                  "--http-worker-client-key-path",
                  rogue.clientKey().toString()))) {
        Map<String, List<String>> refused = RouterFixture.workers(spec);
        refused.put("router-mode", new ArrayList<>(List.of("round-robin")));
        refused.put("served-model-name", new ArrayList<>(List.of(MODEL)));
        putFlags(refused, partial);
        try (RouterFixture router = RouterFixture.start(refused)) {
          assertThatThrownBy(() -> OpenAiRounds.client(router).chat().completions().create(chat()))
              .as("%s", partial)
              .isInstanceOf(OpenAIServiceException.class);
        }
      }
    }
  }

  @Test
  void natsPlane_throughATlsNatsServerWithClientCertificatesAndAPassword() throws Exception {
    String config =
        "tls {\n  cert_file: \""
            + ca.serverCert()
            + "\"\n  key_file: \""
            + ca.serverKey()
            + "\"\n  ca_file: \""
            + ca.ca()
            + "\"\n  verify: true\n}\n"
            + "authorization { user: kvrouter, password: n4ts-pw }\n";
    try (NatsServerProcess nats = NatsServerProcess.startWithConfig(config, false)) {
      List<String> natsArgs =
          List.of(
              "--nats-server",
              "tls://127.0.0.1:" + nats.port(),
              "--nats-tls-ca-cert-path",
              ca.ca().toString(),
              "--nats-tls-client-cert-path",
              ca.clientCert().toString(),
              "--nats-tls-client-key-path",
              ca.clientKey().toString(),
              "--nats-auth-username",
              "kvrouter",
              "--nats-auth-password",
              "n4ts-pw");
      List<String> workerArgs =
          new ArrayList<>(
              List.of("--port", "0", "--request-plane", "nats", "--worker-id", "30105"));
      workerArgs.addAll(natsArgs);
      workerArgs.addAll(tcpTls(ca));
      try (WorkerProcess worker = WorkerProcess.start(MODEL, 1, 1, workerArgs)) {
        // the worker id in decimal, its instance in hex: 30105 = 0x7599
        Map<String, List<String>> flags = RouterFixture.workers("id=w1,instance=7599");
        flags.put("request-plane", new ArrayList<>(List.of("nats")));
        putFlags(flags, natsArgs);
        putFlags(flags, tcpTls(ca));
        try (RouterFixture router = RouterFixture.start(flags)) {
          unaryAndStreamed(OpenAiRounds.client(router));
        }
      }
    }
  }
}
