package io.kvrouter.frontend.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Writes JSON straight into a Vert.x {@link Buffer} with Jackson's streaming generator: no map of
 * the document is built and no serializer is looked up per value, which is what a response chunk
 * per token cannot afford. The generator buffers internally and hands its bytes over on close.
 */
public final class JsonBytes {
  /** Characters beyond the BMP go out as their 4 UTF-8 bytes, as serde_json writes them. */
  private static final JsonFactory FACTORY =
      JsonFactory.builder().enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8).build();

  /** What writes one document. */
  @FunctionalInterface
  public interface Document {
    void write(JsonGenerator json) throws IOException;
  }

  private JsonBytes() {}

  /** Appends one document to {@code out}; returns {@code out}. */
  public static Buffer append(Buffer out, Document document) {
    try (JsonGenerator json = FACTORY.createGenerator(new BufferStream(out))) {
      document.write(json);
    } catch (IOException e) {
      // the stream only appends to memory; the generator fails only on a document's own error
      throw new UncheckedIOException(e);
    }
    return out;
  }

  /** One document as a new buffer. */
  public static Buffer of(Document document) {
    return append(Buffer.buffer(256), document);
  }

  /** An output stream that appends to a buffer. */
  private static final class BufferStream extends OutputStream {
    private final Buffer out;

    BufferStream(Buffer out) {
      this.out = out;
    }

    @Override
    public void write(int b) {
      out.appendByte((byte) b);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) {
      out.appendBytes(bytes, offset, length);
    }
  }
}
