package io.kvrouter.frontend;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import io.kvrouter.protocol.InvalidRequestException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.function.Function;

/**
 * Reads request bodies as JSON objects and turns them into requests.
 *
 * <p>A body of tens of megabytes (a prompt of millions of token ids) takes a parser hundreds of
 * milliseconds, which on an event loop would stall every other connection it serves, {@code
 * /health} included. Bodies above {@link #INLINE_BYTES} are therefore parsed, and turned into a
 * request, on a worker thread; the result comes back on the caller's event loop.
 *
 * <p>Jackson's default limits refuse strings longer than 20 million characters, which would call a
 * valid body within {@code --http-body-limit-mb} invalid JSON; the parser here allows strings as
 * long as the body limit (a string never has more characters than its body has bytes). Arrays of
 * integers are read unboxed ({@link CompactJsonReader}).
 */
final class JsonBodies {
  /** Bodies up to this size are read on the event loop: parsing them takes well under 1 ms. */
  static final int INLINE_BYTES = 64 * 1024;

  private final JsonFactory factory;

  JsonBodies(long bodyLimitBytes) {
    this.factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder()
                    .maxStringLength((int) Math.min(Integer.MAX_VALUE, bodyLimitBytes))
                    .build())
            .build();
  }

  /**
   * {@code body} parsed and handed to {@code reader}, inline when small, else on a worker thread of
   * {@code context}; either way the future completes on {@code context}. It fails with {@link
   * InvalidRequestException} when the body is empty, not JSON or not an object, and with what
   * {@code reader} throws.
   */
  <T> Future<T> read(Context context, Buffer body, Function<JsonObject, T> reader) {
    if (body == null || body.length() <= INLINE_BYTES) {
      try {
        return Future.succeededFuture(reader.apply(parse(body)));
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    }
    return context.executeBlocking(() -> reader.apply(parse(body)), false);
  }

  /** The body as a JSON object. */
  JsonObject parse(Buffer body) {
    if (body == null || body.length() == 0) {
      throw new InvalidRequestException("The request body is empty; expected a JSON object", null);
    }
    Object json;
    try (JsonParser parser = factory.createParser(body.getBytes())) {
      json = CompactJsonReader.read(parser);
    } catch (JsonProcessingException e) {
      // the parser's own words and where, without its location's source description (which names
      // the parser's classes)
      JsonLocation at = e.getLocation();
      throw new InvalidRequestException(
          "The request body is not valid JSON: "
              + e.getOriginalMessage()
              + (at == null
                  ? ""
                  : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"),
          null);
    } catch (IOException e) {
      throw new InvalidRequestException("The request body is not valid JSON", null);
    }
    if (!(json instanceof JsonObject object)) {
      throw new InvalidRequestException("The request body must be a JSON object", null);
    }
    return object;
  }
}
