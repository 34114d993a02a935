package io.kvrouter.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Objects;
import java.util.OptionalLong;
import org.bouncycastle.crypto.digests.Blake3Digest;

/**
 * A file a model card points at: Dynamo's {@code CheckedFile} ({@code
 * lib/llm/src/common/checked_file.rs} @63728476), {@code {"path", "checksum": "blake3:<hex>",
 * "size"?}}, under one of the card's enum tags (e.g. {@code hf_tokenizer_json}).
 *
 * @param kind the enum variant the file sits under, e.g. {@code hf_tokenizer_json}, {@code
 *     hf_chat_template}
 * @param path a local absolute path or a URL ({@code hf://repo/file}, {@code file://}, {@code
 *     nats://host:port/bucket/object}, {@code http(s)://})
 * @param checksum {@code blake3:} and 64 lowercase hex digits
 * @param size the length in bytes; empty in legacy cards
 * @param custom for a chat template variant ({@code {"is_custom", "file"}}): whether it was given
 *     by the user rather than shipped with the model; false for the other kinds
 */
public record CardFile(
    String kind, String path, String checksum, OptionalLong size, boolean custom) {

  public CardFile {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(checksum, "checksum");
    Objects.requireNonNull(size, "size");
  }

  /** A local file under {@code kind}, with its absolute path, BLAKE3 and size. */
  public static CardFile of(String kind, Path file) throws IOException {
    Blake3Digest digest = new Blake3Digest(256);
    byte[] buffer = new byte[1 << 16];
    long size = 0;
    try (InputStream in = Files.newInputStream(file)) {
      for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
        digest.update(buffer, 0, n);
        size += n;
      }
    }
    byte[] hash = new byte[32];
    digest.doFinal(hash, 0);
    return new CardFile(
        kind,
        file.toAbsolutePath().toString(),
        "blake3:" + HexFormat.of().formatHex(hash),
        OptionalLong.of(size),
        false);
  }
}
