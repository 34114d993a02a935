package io.kvrouter.discovery.kube;

import java.nio.charset.StandardCharsets;

/**
 * A Kubernetes worker's Dynamo instance id, derived from its pod's name as Dynamo's {@code
 * hash_pod_name} derives it (docs/notes/dynamo-discovery.md §3.2): Rust's {@code DefaultHasher}
 * (SipHash-1-3, keys 0 and 0) over the name's UTF-8 bytes followed by one {@code 0xFF} byte (how
 * {@code str} hashes), masked to 53 bits so that it survives JSON readers that use doubles.
 */
public final class PodIds {
  /** {@code INSTANCE_ID_MASK}: the 53 bits a JSON number carries exactly. */
  public static final long MASK = 0x001F_FFFF_FFFF_FFFFL;

  private PodIds() {}

  /** The instance id of the worker whose DynamoWorkerMetadata is named {@code name}. */
  public static long instanceId(String name) {
    byte[] text = name.getBytes(StandardCharsets.UTF_8);
    byte[] bytes = new byte[text.length + 1];
    System.arraycopy(text, 0, bytes, 0, text.length);
    bytes[text.length] = (byte) 0xFF;
    return sipHash13(bytes) & MASK;
  }

  /** SipHash-1-3 with both keys 0: one compression round per word, three finalization rounds. */
  static long sipHash13(byte[] in) {
    long v0 = 0x736f6d6570736575L;
    long v1 = 0x646f72616e646f6dL;
    long v2 = 0x6c7967656e657261L;
    long v3 = 0x7465646279746573L;
    int words = in.length / 8;
    for (int w = 0; w < words; w++) {
      long m = littleEndian(in, w * 8, 8);
      v3 ^= m;
      long[] v = round(v0, v1, v2, v3);
      v0 = v[0] ^ m;
      v1 = v[1];
      v2 = v[2];
      v3 = v[3];
    }
    long last = ((long) in.length & 0xFF) << 56 | littleEndian(in, words * 8, in.length % 8);
    v3 ^= last;
    long[] v = round(v0, v1, v2, v3);
    v0 = v[0] ^ last;
    v1 = v[1];
    v2 = v[2] ^ 0xFF;
    v3 = v[3];
    for (int i = 0; i < 3; i++) {
      v = round(v0, v1, v2, v3);
      v0 = v[0];
      v1 = v[1];
      v2 = v[2];
      v3 = v[3];
    }
    return v0 ^ v1 ^ v2 ^ v3;
  }

  private static long[] round(long v0, long v1, long v2, long v3) {
    v0 += v1;
    v1 = Long.rotateLeft(v1, 13) ^ v0;
    v0 = Long.rotateLeft(v0, 32);
    v2 += v3;
    v3 = Long.rotateLeft(v3, 16) ^ v2;
    v0 += v3;
    v3 = Long.rotateLeft(v3, 21) ^ v0;
    v2 += v1;
    v1 = Long.rotateLeft(v1, 17) ^ v2;
    v2 = Long.rotateLeft(v2, 32);
    return new long[] {v0, v1, v2, v3};
  }

  private static long littleEndian(byte[] in, int offset, int length) {
    long value = 0;
    for (int i = 0; i < length; i++) {
      value |= (in[offset + i] & 0xFFL) << (8 * i);
    }
    return value;
  }
}
