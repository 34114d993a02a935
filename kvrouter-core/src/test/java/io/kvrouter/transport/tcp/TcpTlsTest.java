package io.kvrouter.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.kvrouter.config.ResponseStreamKind;
import io.kvrouter.config.ResponseStreams;
import io.kvrouter.config.TcpConfig;
import io.kvrouter.config.TcpTls;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.WorkerEndpoint;
import io.kvrouter.protocol.WorkerUnavailableException;
import io.kvrouter.testing.TestCertificates;
import io.kvrouter.transport.RequestPlane;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS and mutual TLS on the TCP request plane ({@code DYN_TCP_TLS_*}), router and worker in-process
 * over loopback sockets, with certificates made by openssl: requests and both kinds of response
 * stream pass when each side trusts the other; a client certificate from another CA, none at all,
 * plain text, or a server certificate for another name is refused at the handshake.
 */
@ExtendWith(VertxExtension.class)
class TcpTlsTest {
  @TempDir static Path dir;
  @TempDir static Path rogueDir;
  private static TestCertificates ca;
  private static TestCertificates rogue;
  private static TestCertificates.Issued named;

  private Vertx vertx;
  private final List<WorkerServer> servers = new ArrayList<>();
  private final List<RequestPlane> planes = new ArrayList<>();

  @BeforeAll
  static void certificates() throws Exception {
    ca = TestCertificates.generate(dir);
    rogue = TestCertificates.generate(rogueDir);
    named = ca.issueServer(dir, "worker-internal", "DNS:worker.internal");
  }

  @BeforeEach
  void setUp(Vertx vertx) {
    this.vertx = vertx;
  }

  @AfterEach
  void tearDown() throws Exception {
    for (RequestPlane plane : planes) {
      Await.result(plane.close());
    }
    for (WorkerServer server : servers) {
      Await.result(server.close());
    }
  }

  /** Both roles, mutual: server certificate, client CA, CA of servers, client certificate. */
  private static TcpTls mutual(TestCertificates clientIdentity) {
    return tls(
        ca.serverCert(),
        ca.serverKey(),
        ca.ca(),
        ca.ca(),
        false,
        null,
        clientIdentity.clientCert(),
        clientIdentity.clientKey());
  }

  @Test
  void mutualTls_requestsAndBothKindsOfResponseStreamPass() throws Exception {
    for (ResponseStreamKind kind : ResponseStreamKind.values()) {
      WorkerEndpoint worker = worker(mutual(ca));
      RequestPlane router =
          plane(config(mutual(ca)).withResponseStreams(ResponseStreams.all(kind)));

      assertThat(generate(router, worker, 7)).as("%s", kind).hasSize(3);
    }
  }

  @Test
  void aRouterWithoutTheRightClientCertificate_isRefusedByTheWorker() throws Exception {
    WorkerEndpoint worker = worker(mutual(ca));
    TcpTls noIdentity =
        tls(ca.serverCert(), ca.serverKey(), ca.ca(), ca.ca(), false, null, null, null);

    for (TcpTls tls : List.of(mutual(rogue), noIdentity)) {
      Throwable refused = Await.failure(plane(config(tls)).send(worker, "r1", request(1)));
      assertThat(refused).isInstanceOf(WorkerUnavailableException.class);
    }
    assertThat(Await.failure(plane(config(TcpTls.NONE)).send(worker, "r1", request(1))))
        .isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void aWorkerCallingHomeWithAForeignCertificate_isRefusedByTheRouter() throws Exception {
    // the worker trusts the router and is trusted for requests; only its client identity is wrong
    TcpTls workerSide =
        tls(
            ca.serverCert(),
            ca.serverKey(),
            null,
            ca.ca(),
            false,
            null,
            rogue.clientCert(),
            rogue.clientKey());
    TcpTls routerSide =
        tls(
            ca.serverCert(),
            ca.serverKey(),
            ca.ca(),
            ca.ca(),
            false,
            null,
            ca.clientCert(),
            ca.clientKey());
    WorkerEndpoint worker = worker(workerSide);
    RequestPlane router = plane(config(routerSide).withCallHomeTimeout(Duration.ofSeconds(2)));

    Throwable failure = Await.failure(generateAsync(router, worker, 1));

    assertThat(failure).isNotNull();
    // the same worker with the right identity is served
    WorkerEndpoint good = worker(mutual(ca));
    assertThat(generate(router, good, 2)).hasSize(3);
  }

  @Test
  void theWorkersListenerSpeaksTlsOnly_andAsksForAClientCertificate() throws Exception {
    WorkerEndpoint worker = worker(mutual(ca));

    try (Socket plain = new Socket("127.0.0.1", worker.port())) {
      plain.getOutputStream().write(new byte[64]);
      plain.setSoTimeout(10_000);
      // a TLS server answers bytes that are no handshake with an alert or a close, never data
      int first = plain.getInputStream().read();
      assertThat(first).isIn(-1, 0x15);
    } catch (IOException reset) {
      // a reset is a refusal too
    }
    try (SSLSocket noCertificate =
        (SSLSocket)
            ca.clientContext().getSocketFactory().createSocket("127.0.0.1", worker.port())) {
      noCertificate.setSoTimeout(10_000);
      boolean refused;
      try {
        noCertificate.startHandshake();
        // TLS 1.3: the server's refusal comes with the first read
        refused = noCertificate.getInputStream().read() < 0;
      } catch (IOException e) {
        refused = true;
      }
      assertThat(refused).isTrue();
    }
  }

  @Test
  void theServerNameOverride_isWhatTheCertificateIsCheckedAgainst() throws Exception {
    TcpTls workerSide = tls(named.cert(), named.key(), null, ca.ca(), false, null, null, null);
    TcpTls dialByIp = tls(ca.serverCert(), ca.serverKey(), null, ca.ca(), false, null, null, null);
    WorkerEndpoint worker = worker(workerSide);

    assertThat(Await.failure(plane(config(dialByIp)).send(worker, "r1", request(1))))
        .isInstanceOf(WorkerUnavailableException.class);
    TcpTls byName =
        tls(
            dialByIp.certPath(),
            dialByIp.keyPath(),
            null,
            ca.ca(),
            false,
            "worker.internal",
            null,
            null);
    assertThat(generate(plane(config(byName)), worker, 3)).hasSize(3);
    // with the override, the name dialled no longer counts: a certificate for 127.0.0.1 alone fails
    WorkerEndpoint byIpOnly =
        worker(tls(ca.serverCert(), ca.serverKey(), null, ca.ca(), false, null, null, null));
    assertThat(Await.failure(plane(config(byName)).send(byIpOnly, "r2", request(2))))
        .isInstanceOf(WorkerUnavailableException.class);
  }

  @Test
  void insecure_checksNothingButStillSpeaksTls() throws Exception {
    // a certificate from a CA the router does not know, and one for another name than the host
    WorkerEndpoint foreign =
        worker(tls(rogue.serverCert(), rogue.serverKey(), null, ca.ca(), false, null, null, null));
    WorkerEndpoint otherName =
        worker(tls(named.cert(), named.key(), null, ca.ca(), false, null, null, null));
    TcpTls insecure = tls(ca.serverCert(), ca.serverKey(), null, null, true, null, null, null);
    TcpTls checking = tls(ca.serverCert(), ca.serverKey(), null, ca.ca(), false, null, null, null);

    for (WorkerEndpoint worker : List.of(foreign, otherName)) {
      assertThat(generate(plane(config(insecure)), worker, 4)).hasSize(3);
      assertThat(Await.failure(plane(config(checking)).send(worker, "r5", request(5))))
          .isInstanceOf(WorkerUnavailableException.class);
    }
  }

  @Test
  void tlsFilesThatDoNotLoad_stopThePlaneAtOnce() throws Exception {
    Path garbage = java.nio.file.Files.writeString(dir.resolve("garbage.pem"), "not a PEM");
    TcpTls broken = tls(null, null, null, garbage, false, null, null, null);

    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> TcpTransport.client(vertx, config(broken)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--tcp-tls-");
  }

  private List<EngineOutput> generate(RequestPlane plane, WorkerEndpoint worker, int token)
      throws Exception {
    Collector collector = new Collector();
    Await.result(plane.send(worker, "r" + token, request(token))).subscribe(collector);
    return collector.await();
  }

  private io.vertx.core.Future<List<EngineOutput>> generateAsync(
      RequestPlane plane, WorkerEndpoint worker, int token) {
    return plane
        .send(worker, "r" + token, request(token))
        .compose(
            stream -> {
              Collector collector = new Collector();
              stream.subscribe(collector);
              return io.vertx.core.Future.fromCompletionStage(collector.done);
            });
  }

  private WorkerEndpoint worker(TcpTls tls) throws Exception {
    ScriptedEngine engine = new ScriptedEngine(vertx, 3, 0, ScriptedEngine.Failure.NONE);
    WorkerServer server =
        Await.result(
            TcpTransport.server(
                vertx,
                "127.0.0.1",
                0,
                Map.of("generate", engine),
                Map.of(),
                config(tls),
                Set.of(ResponseStreamKind.values())));
    servers.add(server);
    return new WorkerEndpoint("w" + servers.size(), "127.0.0.1", server.port(), "generate");
  }

  private RequestPlane plane(TcpConfig config) {
    RequestPlane plane = TcpTransport.client(vertx, config);
    planes.add(plane);
    return plane;
  }

  /** TLS settings with the default handshake timeout, in {@link TcpTls}'s order. */
  private static TcpTls tls(
      Path cert,
      Path key,
      Path clientCa,
      Path ca,
      boolean insecure,
      String serverName,
      Path clientCert,
      Path clientKey) {
    return new TcpTls(
        cert,
        key,
        clientCa,
        ca,
        insecure,
        serverName,
        clientCert,
        clientKey,
        TcpTls.DEFAULT_HANDSHAKE_TIMEOUT);
  }

  private static TcpConfig config(TcpTls tls) {
    return TcpEndToEndTest.config(4).withTls(tls);
  }

  private static io.kvrouter.protocol.PreprocessedRequest request(int token) {
    return TcpEndToEndTest.request(token);
  }
}
