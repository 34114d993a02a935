package io.kvrouter.common;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A client {@link SSLContext} from PEM files, with the JDK alone, for clients that take a context
 * rather than files (jnats): trust in a CA bundle (or the JVM's CAs), a client certificate whose
 * key is PKCS#8 ({@code BEGIN PRIVATE KEY}) or PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}), and the
 * server's host name checked as HTTPS checks it, whether or not the client asks for it: the trust
 * manager turns the check on for the socket or engine it is handed.
 */
public final class PemTls {
  private PemTls() {}

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z ]+)-----([^-]+)-----END \\1-----");

  /**
   * A TLS client context.
   *
   * @param ca the CA bundle the server's certificate must chain to; null for the JVM's CAs
   * @param insecure check no server certificate at all (development only); {@code ca} is then
   *     ignored
   * @param clientCert with {@code clientKey}, the certificate (and chain) presented; null for none
   * @throws IllegalArgumentException when a file cannot be read or holds no usable PEM
   */
  public static SSLContext clientContext(
      Path ca, boolean insecure, Path clientCert, Path clientKey) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keyManagers(clientCert, clientKey),
          insecure ? new TrustManager[] {TrustingAll.INSTANCE} : trustManagers(ca),
          null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  private static KeyManager[] keyManagers(Path cert, Path key)
      throws GeneralSecurityException, IOException {
    if (cert == null) {
      return null;
    }
    List<Certificate> chain = List.copyOf(certificates(cert));
    if (chain.isEmpty()) {
      throw new CertificateException(cert + " holds no certificate");
    }
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("client", privateKey(key), new char[0], chain.toArray(new Certificate[0]));
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, new char[0]);
    return factory.getKeyManagers();
  }

  private static TrustManager[] trustManagers(Path ca)
      throws GeneralSecurityException, IOException {
    KeyStore store = null;
    if (ca != null) {
      store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int i = 0;
      for (Certificate certificate : certificates(ca)) {
        store.setCertificateEntry("ca-" + i++, certificate);
      }
      if (i == 0) {
        throw new CertificateException(ca + " holds no certificate");
      }
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    for (TrustManager manager : factory.getTrustManagers()) {
      if (manager instanceof X509ExtendedTrustManager extended) {
        return new TrustManager[] {new HostChecking(extended)};
      }
    }
    throw new GeneralSecurityException("no X.509 trust manager");
  }

  private static Collection<? extends Certificate> certificates(Path file)
      throws GeneralSecurityException, IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return CertificateFactory.getInstance("X.509").generateCertificates(in);
    }
  }

  private static PrivateKey privateKey(Path file) throws GeneralSecurityException, IOException {
    Matcher block = BLOCK.matcher(Files.readString(file, StandardCharsets.US_ASCII));
    if (!block.find()) {
      throw new GeneralSecurityException(file + " holds no PEM private key");
    }
    byte[] der = Base64.getMimeDecoder().decode(block.group(2));
    byte[] pkcs8 =
        switch (block.group(1)) {
          case "PRIVATE KEY" -> der;
          case "RSA PRIVATE KEY" -> rsaPkcs8(der);
          default ->
              throw new GeneralSecurityException(
                  file + ": a " + block.group(1) + " is not read here; give PKCS#8 or PKCS#1");
        };
    for (String algorithm : List.of("RSA", "EC", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
      } catch (GeneralSecurityException notThisOne) {
        // the next algorithm
      }
    }
    throw new GeneralSecurityException(file + ": an unencrypted RSA, EC or Ed25519 key is needed");
  }

  /**
   * A PKCS#1 RSA key wrapped as PKCS#8: {@code SEQUENCE { INTEGER 0, SEQUENCE { OID rsaEncryption,
   * NULL }, OCTET STRING pkcs1 }}.
   */
  private static byte[] rsaPkcs8(byte[] pkcs1) {
    byte[] version = {0x02, 0x01, 0x00};
    byte[] algorithm = {
      0x30,
      0x0d,
      0x06,
      0x09,
      0x2a,
      (byte) 0x86,
      0x48,
      (byte) 0x86,
      (byte) 0xf7,
      0x0d,
      0x01,
      0x01,
      0x01,
      0x05,
      0x00
    };
    byte[] key = der(0x04, pkcs1);
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    body.writeBytes(version);
    body.writeBytes(algorithm);
    body.writeBytes(key);
    return der(0x30, body.toByteArray());
  }

  private static byte[] der(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  /** Checks nothing: {@code --nats-tls-insecure}. */
  private static final class TrustingAll extends X509ExtendedTrustManager {
    static final TrustingAll INSTANCE = new TrustingAll();

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }

  /** Delegates every check, with the HTTPS host-name check turned on for the server's. */
  private static final class HostChecking extends X509ExtendedTrustManager {
    private final X509ExtendedTrustManager delegate;

    HostChecking(X509ExtendedTrustManager delegate) {
      this.delegate = delegate;
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      if (socket instanceof SSLSocket ssl) {
        SSLParameters parameters = ssl.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        ssl.setSSLParameters(parameters);
      }
      delegate.checkServerTrusted(chain, authType, socket);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      SSLParameters parameters = engine.getSSLParameters();
      parameters.setEndpointIdentificationAlgorithm("HTTPS");
      engine.setSSLParameters(parameters);
      delegate.checkServerTrusted(chain, authType, engine);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      throw new CertificateException("the server's host name cannot be checked without a socket");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType, socket);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType, engine);
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      delegate.checkClientTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return delegate.getAcceptedIssuers();
    }
  }
}
