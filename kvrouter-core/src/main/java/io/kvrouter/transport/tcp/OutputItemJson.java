package io.kvrouter.transport.tcp;

import static io.kvrouter.protocol.UsualShape.expect;
import static io.kvrouter.protocol.UsualShape.ints;
import static io.kvrouter.protocol.UsualShape.plainInt;
import static io.kvrouter.protocol.UsualShape.string;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.UsualShape.OffShape;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.util.List;

/**
 * Reads a generate stream's JSON envelope ({@link ResponseEnvelope} of a {@link StreamItem}, one
 * per data frame, so one per token or batch of tokens) with Jackson's streaming parser, token by
 * token, instead of binding it to records through reflection, which cost the router about a seventh
 * of its CPU per streamed token.
 *
 * <p>The envelope's usual shape, {@code {"data":{"data":{"token_ids":[..],"text":..,"index":..,
 * "finish_reason":..}},"complete_final":false}}, is read here directly; the rarer fields ({@code
 * finish_reason}, logprobs, {@code comment}, {@code error}) are bound by the same mapper as before
 * from where the parser stands. Anything off that shape (a token id that is not a plain int, a text
 * that is not a string, a malformed document) is read again from the start by the mapper, so every
 * input decodes to what {@link WireJson} gives, errors included.
 */
final class OutputItemJson {
  private static final JavaType COMMENT =
      WireJson.MAPPER.constructType(new TypeReference<List<String>>() {});
  private static final JavaType LOG_PROBS =
      WireJson.MAPPER.constructType(new TypeReference<List<Double>>() {});
  private static final JavaType TOP_LOGPROBS =
      WireJson.MAPPER.constructType(new TypeReference<List<List<EngineOutput.TopLogprob>>>() {});

  private OutputItemJson() {}

  static ResponseEnvelope<StreamItem> read(Buffer body, String what) {
    byte[] bytes = body.getBytes();
    try (JsonParser parser = WireJson.MAPPER.getFactory().createParser(bytes)) {
      // a repeated key is the mapper's to judge (it refuses some a record was built before)
      parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      return envelope(parser);
    } catch (OffShape | IOException | RuntimeException e) {
      return WireJson.read(body, ResponseEnvelope.OF_OUTPUT, what);
    }
  }

  private static ResponseEnvelope<StreamItem> envelope(JsonParser p) throws IOException, OffShape {
    expect(p.nextToken() == JsonToken.START_OBJECT);
    StreamItem item = null;
    boolean completeFinal = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "data" -> item = value == JsonToken.VALUE_NULL ? null : item(p, value);
        case "complete_final" -> {
          expect(value == JsonToken.VALUE_TRUE || value == JsonToken.VALUE_FALSE);
          completeFinal = value == JsonToken.VALUE_TRUE;
        }
        default -> p.skipChildren();
      }
    }
    expect(p.currentToken() == JsonToken.END_OBJECT && p.nextToken() == null);
    return new ResponseEnvelope<>(item, completeFinal);
  }

  private static StreamItem item(JsonParser p, JsonToken start) throws IOException, OffShape {
    expect(start == JsonToken.START_OBJECT);
    EngineOutput data = null;
    String id = null;
    String event = null;
    List<String> comment = null;
    JsonNode error = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "data" -> data = value == JsonToken.VALUE_NULL ? null : output(p, value);
        case "id" -> id = string(p, value);
        case "event" -> event = string(p, value);
        case "comment" -> comment = WireJson.MAPPER.readValue(p, COMMENT);
        case "error" -> error = WireJson.MAPPER.readTree(p);
        default -> p.skipChildren();
      }
    }
    return new StreamItem(data, id, event, comment, error);
  }

  private static EngineOutput output(JsonParser p, JsonToken start) throws IOException, OffShape {
    expect(start == JsonToken.START_OBJECT);
    int[] tokenIds = null;
    String text = null;
    FinishReason finishReason = null;
    Integer index = null;
    List<Double> logProbs = null;
    List<List<EngineOutput.TopLogprob>> topLogprobs = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "token_ids" -> tokenIds = value == JsonToken.VALUE_NULL ? null : ints(p, value);
        case "text" -> text = string(p, value);
        case "index" -> index = value == JsonToken.VALUE_NULL ? null : plainInt(p, value);
        case "finish_reason" -> finishReason = WireJson.MAPPER.readValue(p, FinishReason.class);
        case "log_probs" -> logProbs = WireJson.MAPPER.readValue(p, LOG_PROBS);
        case "top_logprobs" -> topLogprobs = WireJson.MAPPER.readValue(p, TOP_LOGPROBS);
        default -> p.skipChildren();
      }
    }
    return new EngineOutput(tokenIds, text, finishReason, index, logProbs, topLogprobs);
  }
}
