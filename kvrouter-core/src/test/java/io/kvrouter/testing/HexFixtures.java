package io.kvrouter.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * Golden byte fixtures on the test classpath: stored as hex text, where {@code #} starts a comment
 * ({@link #load}), or as the bytes themselves ({@link #bytes}).
 */
public final class HexFixtures {
  private HexFixtures() {}

  /** The bytes of the fixture at classpath {@code resource}, e.g. {@code /golden/tcp/ack.hex}. */
  public static byte[] load(String resource) {
    StringBuilder hex = new StringBuilder();
    for (String line : new String(bytes(resource), StandardCharsets.US_ASCII).split("\n")) {
      int comment = line.indexOf('#');
      hex.append(comment >= 0 ? line.substring(0, comment) : line);
    }
    return HexFormat.of().parseHex(hex.toString().replaceAll("\\s+", ""));
  }

  /**
   * The file at classpath {@code resource} as it is, e.g. {@code /golden/vllm/map_batch.msgpack}.
   */
  public static byte[] bytes(String resource) {
    try (InputStream in = HexFixtures.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + resource);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
