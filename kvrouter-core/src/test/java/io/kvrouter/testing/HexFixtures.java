package io.kvrouter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/** Golden byte fixtures stored as hex text on the test classpath: {@code #} starts a comment. */
public final class HexFixtures {
  private HexFixtures() {}

  /** The bytes of the fixture at classpath {@code resource}, e.g. {@code /golden/tcp/ack.hex}. */
  public static byte[] load(String resource) {
    try (InputStream in = HexFixtures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + resource);
      }
      StringBuilder hex = new StringBuilder();
      for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
        int comment = line.indexOf('#');
        hex.append(comment >= 0 ? line.substring(0, comment) : line);
      }
      return HexFormat.of().parseHex(hex.toString().replaceAll("\\s+", ""));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
