package io.kvrouter.protocol.vllm;

import static io.kvrouter.protocol.UsualShape.expect;
import static io.kvrouter.protocol.UsualShape.ints;
import static io.kvrouter.protocol.UsualShape.string;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kvrouter.protocol.EngineErrorEvent;
import io.kvrouter.protocol.EngineOutput;
import io.kvrouter.protocol.FinishReason;
import io.kvrouter.protocol.UsualShape.OffShape;
import java.io.IOException;
import java.util.Optional;

/**
 * Reads one streamed completion chunk from its bytes, as {@link VllmCompletions#readChunk} reads
 * its tree, without building the tree: a chunk arrives per token. The usual chunk, {@code
 * {"id":..,"choices":[{"index":0,"text":..,"logprobs":null,"finish_reason":..,"stop_reason":..,
 * "token_ids":[..]}],"usage":null}}, is taken apart with the streaming parser; anything else (an
 * error event, logprobs, a token id that is not a plain int, no choices array) is read into a tree
 * and handed to {@code readChunk}, so every chunk reads as it did, errors included.
 */
public final class VllmChunkJson {
  private static final ObjectMapper JSON = new ObjectMapper();

  private VllmChunkJson() {}

  /**
   * The chunk's output, or empty for a chunk without a choice (the usage chunk).
   *
   * @throws EngineErrorEvent for an error event, with the engine's message
   * @throws IllegalArgumentException for a chunk that is not a completion chunk
   * @throws IOException for bytes that are not JSON
   */
  public static Optional<EngineOutput> read(byte[] json, int offset, int length)
      throws IOException {
    try (JsonParser parser = JSON.getFactory().createParser(json, offset, length)) {
      return usual(parser);
    } catch (OffShape | IOException | RuntimeException e) {
      return VllmCompletions.readChunk(JSON.readTree(json, offset, length));
    }
  }

  private static Optional<EngineOutput> usual(JsonParser p) throws IOException, OffShape {
    expect(p.nextToken() == JsonToken.START_OBJECT);
    Optional<EngineOutput> output = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "error" -> expect(value == JsonToken.VALUE_NULL);
        case "choices" -> output = firstChoice(p, value);
        default -> p.skipChildren();
      }
    }
    expect(output != null && p.nextToken() == null);
    return output;
  }

  private static Optional<EngineOutput> firstChoice(JsonParser p, JsonToken start)
      throws IOException, OffShape {
    expect(start == JsonToken.START_ARRAY);
    JsonToken first = p.nextToken();
    if (first == JsonToken.END_ARRAY) {
      return Optional.empty();
    }
    expect(first == JsonToken.START_OBJECT);
    int[] tokenIds = new int[0];
    String finish = null;
    boolean stopped = false;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "token_ids" -> tokenIds = value == JsonToken.VALUE_NULL ? new int[0] : ints(p, value);
        case "finish_reason" -> finish = string(p, value);
        case "stop_reason" -> {
          stopped = value != JsonToken.VALUE_NULL;
          p.skipChildren();
        }
        case "logprobs" -> expect(value == JsonToken.VALUE_NULL);
        default -> p.skipChildren();
      }
    }
    while (p.nextToken() != JsonToken.END_ARRAY) {
      p.skipChildren(); // later choices: one prompt per request, so none
    }
    FinishReason reason = VllmCompletions.finishReason(finish, stopped ? Boolean.TRUE : null);
    return Optional.of(new EngineOutput(tokenIds, null, reason, null));
  }
}
