package io.kvrouter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A throw-away CA, a server certificate for 127.0.0.1 and a client certificate, made by the {@code
 * openssl} command line (keys as unencrypted PKCS#8 PEM, which Netty reads) in {@code dir}. {@code
 * scripts/test} installs Debian's {@code openssl} when it is missing.
 *
 * @param ca the CA certificate (PEM)
 * @param serverCert the server certificate, for IP 127.0.0.1
 * @param clientCert a client certificate signed by the CA (CN {@code root})
 */
public record TestCertificates(
    Path ca, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {

  public static TestCertificates generate(Path dir) throws IOException, InterruptedException {
    Files.writeString(
        dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n");
    Files.writeString(dir.resolve("client.ext"), "extendedKeyUsage=clientAuth\n");
    openssl(
        dir,
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=kvrouter-test-ca");
    issue(dir, "server", "/CN=127.0.0.1", "server.ext");
    issue(dir, "client", "/CN=root", "client.ext");
    return new TestCertificates(
        dir.resolve("ca.pem"),
        dir.resolve("server.pem"),
        dir.resolve("server.key"),
        dir.resolve("client.pem"),
        dir.resolve("client.key"));
  }

  /**
   * Another server certificate for 127.0.0.1 from the same CA, with a key and serial of its own, as
   * {@code name.pem} and {@code name.key} in {@code dir} (the folder of {@link #generate}): a
   * renewal.
   */
  public Issued renewServer(Path dir, String name) throws IOException, InterruptedException {
    issue(dir, name, "/CN=127.0.0.1", "server.ext");
    return new Issued(dir.resolve(name + ".pem"), dir.resolve(name + ".key"));
  }

  /**
   * A server certificate from this CA whose only name is {@code subjectAltName} (e.g. {@code
   * DNS:worker.internal}), as {@code name.pem} and {@code name.key} in {@code dir} (the folder of
   * {@link #generate}).
   */
  public Issued issueServer(Path dir, String name, String subjectAltName)
      throws IOException, InterruptedException {
    Files.writeString(
        dir.resolve(name + ".ext"),
        "subjectAltName=" + subjectAltName + "\nextendedKeyUsage=serverAuth\n");
    issue(dir, name, "/CN=" + name, name + ".ext");
    return new Issued(dir.resolve(name + ".pem"), dir.resolve(name + ".key"));
  }

  /** A key {@code name.key} and a certificate {@code name.pem} the CA signs, with {@code ext}. */
  private static void issue(Path dir, String name, String subject, String ext)
      throws IOException, InterruptedException {
    openssl(
        dir,
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        name + ".key",
        "-out",
        name + ".csr",
        "-subj",
        subject);
    openssl(
        dir,
        "x509",
        "-req",
        "-in",
        name + ".csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        name + ".pem",
        "-days",
        "2",
        "-extfile",
        ext);
  }

  /** A certificate and its key (PEM). */
  public record Issued(Path cert, Path key) {
    public BigInteger serial() throws Exception {
      return TestCertificates.serial(cert);
    }
  }

  /** The serial number of the certificate in {@code pem}. */
  public static BigInteger serial(Path pem) throws Exception {
    try (InputStream in = Files.newInputStream(pem)) {
      return ((X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in))
          .getSerialNumber();
    }
  }

  /** A trust manager that trusts this CA alone. */
  public X509TrustManager trustManager() throws Exception {
    KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    try (InputStream in = Files.newInputStream(ca)) {
      store.setCertificateEntry(
          "ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return (X509TrustManager) factory.getTrustManagers()[0];
  }

  /** A client TLS context that trusts this CA alone. */
  public SSLContext clientContext() throws Exception {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, new TrustManager[] {trustManager()}, null);
    return context;
  }

  private static void openssl(Path dir, String... args) throws IOException, InterruptedException {
    List<String> command = new java.util.ArrayList<>(List.of("openssl"));
    command.addAll(List.of(args));
    Process process =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String said = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed:\n" + said);
    }
  }
}
