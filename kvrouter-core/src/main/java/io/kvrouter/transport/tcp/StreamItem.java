package io.kvrouter.transport.tcp;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvrouter.protocol.EngineOutput;
import java.util.List;

/**
 * One item of a response stream: Dynamo's {@code Annotated<LLMEngineOutput>}.
 *
 * <pre>
 * output:        {"data":{"token_ids":[11,12]}}
 * error (v1):    {"event":"error","error":{"error_type":"Unknown","message":"boom"}}
 * error (v0.x):  {"event":"error","comment":["boom"]}
 * </pre>
 *
 * <p>An error is {@code event:"error"}. Dynamo v0.x put the text in {@code comment}, a list of
 * strings; v1 puts a {@code DynamoError} object in {@code error}, whose {@code error_type} and
 * {@code message} every v1 reader accepts. Both are decoded; the v1 form is encoded. An item with
 * neither data nor an error is an annotation and carries no output.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"data", "id", "event", "comment", "error"})
record StreamItem(
    @JsonProperty("data") EngineOutput data,
    @JsonProperty("id") String id,
    @JsonProperty("event") String event,
    @JsonProperty("comment") List<String> comment,
    @JsonProperty("error") JsonNode error) {

  static final String ERROR_EVENT = "error";

  static StreamItem of(EngineOutput output) {
    return new StreamItem(output, null, null, null, null);
  }

  /** An error item in the v1 form, with Dynamo's catch-all error type. */
  static StreamItem failure(String message) {
    ObjectNode error = WireJson.MAPPER.createObjectNode();
    error.put("error_type", "Unknown");
    error.put("message", message);
    return new StreamItem(null, null, ERROR_EVENT, null, error);
  }

  boolean isError() {
    return ERROR_EVENT.equals(event);
  }

  /** The error text, from whichever form the worker used. */
  String errorMessage() {
    if (error != null && error.isObject()) {
      for (String field : new String[] {"message", "diagnostic"}) {
        JsonNode text = error.get(field);
        if (text != null && text.isTextual() && !text.asText().isEmpty()) {
          return text.asText();
        }
      }
    } else if (error != null && error.isTextual()) {
      return error.asText();
    }
    if (comment != null && !comment.isEmpty()) {
      return String.join(", ", comment);
    }
    return "unknown error";
  }
}
