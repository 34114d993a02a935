package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.Prompt;
import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Parses and validates OpenAI request bodies with Dynamo's rules: ranges for sampling parameters,
 * at most four stop strings, non-empty messages, and every unknown or unsupported field rejected
 * by name (a silently ignored parameter would give the client something it did not ask for).
 */
public final class OpenAiRequests {
  private OpenAiRequests() {}

  static final int MAX_STOP_STRINGS = 4;
  static final Set<String> ROLES = Set.of("system", "developer", "user", "assistant", "tool");

  /** Fields both APIs share. */
  private static final Set<String> COMMON =
      Set.of(
          "model", "stream", "stream_options", "max_tokens", "temperature", "top_p", "top_k",
          "min_p", "n", "stop", "stop_token_ids", "seed", "presence_penalty",
          "frequency_penalty", "repetition_penalty", "min_tokens", "ignore_eos", "user",
          "logit_bias", "logprobs");

  private static final Set<String> CHAT =
      union(COMMON, "messages", "max_completion_tokens", "top_logprobs");
  private static final Set<String> COMPLETIONS = union(COMMON, "prompt", "echo", "best_of");

  public static OpenAiRequest chat(JsonObject body) {
    JsonFields f = new JsonFields(body);
    f.rejectUnknown(CHAT);
    Integer maxTokens = f.integer("max_completion_tokens", 1, Integer.MAX_VALUE);
    if (maxTokens == null) {
      maxTokens = f.integer("max_tokens", 1, Integer.MAX_VALUE);
    }
    f.integer("top_logprobs", 0, 20);
    if (f.bool("logprobs", false)) {
      throw unsupported("logprobs");
    }
    return common(f, new Prompt.Chat(messages(f), true), maxTokens, false);
  }

  public static OpenAiRequest completion(JsonObject body) {
    JsonFields f = new JsonFields(body);
    f.rejectUnknown(COMPLETIONS);
    Integer bestOf = f.integer("best_of", 1, 128);
    if (bestOf != null && bestOf > 1) {
      throw unsupported("best_of");
    }
    if (f.has("logprobs")) {
      f.integer("logprobs", 0, 20);
      throw unsupported("logprobs");
    }
    Integer maxTokens = f.integer("max_tokens", 1, Integer.MAX_VALUE);
    return common(f, new Prompt.Text(prompt(f)), maxTokens, f.bool("echo", false));
  }

  private static OpenAiRequest common(
      JsonFields f, Prompt prompt, Integer maxTokens, boolean echo) {
    String model = f.string("model");
    boolean stream = f.bool("stream", false);
    JsonObject streamOptions = f.object("stream_options");
    boolean includeUsage = false;
    if (streamOptions != null) {
      JsonFields options = new JsonFields(streamOptions);
      options.rejectUnknown(Set.of("include_usage"));
      includeUsage = options.bool("include_usage", false);
      if (!stream) {
        throw new InvalidRequestException(
            "'stream_options' is only allowed when 'stream' is true", "stream_options");
      }
    }
    Double temperature = f.number("temperature", 0, 2);
    Integer n = f.integer("n", 1, 128);
    if (n != null && n > 1) {
      if (temperature == null || temperature == 0) {
        throw new InvalidRequestException(
            "Validation: 'n' above 1 needs a 'temperature' above 0", "n");
      }
      throw unsupported("n");
    }
    Integer topK = f.integer("top_k", -1, Integer.MAX_VALUE);
    if (topK != null && topK == 0) {
      throw new InvalidRequestException("Validation: 'top_k' must be -1 or at least 1", "top_k");
    }
    Double repetitionPenalty = f.number("repetition_penalty", 0, 2);
    if (repetitionPenalty != null && repetitionPenalty == 0) {
      throw new InvalidRequestException(
          "Validation: 'repetition_penalty' must be above 0 and at most 2", "repetition_penalty");
    }
    JsonObject logitBias = f.object("logit_bias");
    if (logitBias != null && !logitBias.isEmpty()) {
      for (Object bias : logitBias.getMap().values()) {
        if (!(bias instanceof Number value) || Math.abs(value.doubleValue()) > 100) {
          throw new InvalidRequestException(
              "Validation: 'logit_bias' values must be numbers between -100 and 100",
              "logit_bias");
        }
      }
      throw unsupported("logit_bias");
    }
    if (f.has("user")) {
      f.string("user");
    }
    List<String> stop = f.stringOrStrings("stop");
    if (stop.size() > MAX_STOP_STRINGS) {
      throw new InvalidRequestException(
          "Validation: at most " + MAX_STOP_STRINGS + " stop strings are allowed", "stop");
    }
    if (stop.stream().anyMatch(String::isEmpty)) {
      throw new InvalidRequestException("Validation: stop strings must not be empty", "stop");
    }
    SamplingOptions sampling =
        new SamplingOptions(
            n,
            f.longValue("seed", Long.MIN_VALUE, Long.MAX_VALUE),
            temperature,
            f.number("top_p", 0, 1),
            topK,
            f.number("min_p", 0, 1),
            f.number("presence_penalty", -2, 2),
            f.number("frequency_penalty", -2, 2),
            repetitionPenalty);
    return new OpenAiRequest(
        model,
        stream,
        includeUsage,
        prompt,
        maxTokens,
        stop,
        f.integers("stop_token_ids"),
        f.integer("min_tokens", 0, Integer.MAX_VALUE),
        f.bool("ignore_eos", false),
        sampling,
        echo);
  }

  private static List<ChatMessage> messages(JsonFields f) {
    JsonArray array = f.array("messages");
    if (array == null) {
      throw new InvalidRequestException("'messages' is required", "messages");
    }
    if (array.isEmpty()) {
      throw new InvalidRequestException("Validation: 'messages' must not be empty", "messages");
    }
    List<ChatMessage> messages = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String param = "messages[" + i + "]";
      if (!(array.getValue(i) instanceof JsonObject message)) {
        throw JsonFields.typeError(param, "an object");
      }
      JsonFields m = new JsonFields(message);
      m.rejectUnknown(Set.of("role", "content", "name"));
      String role = m.string("role");
      if (!ROLES.contains(role)) {
        throw new InvalidRequestException(
            "'" + param + ".role' must be one of system, developer, user, assistant, tool; got '"
                + role + "'", param + ".role");
      }
      messages.add(new ChatMessage(role, content(message.getValue("content"), param, role)));
    }
    return messages;
  }

  /** Message content: a string, or an array of {@code {"type":"text","text":...}} parts. */
  private static String content(Object value, String param, String role) {
    if (value == null) {
      if (role.equals("assistant")) {
        return "";
      }
      throw new InvalidRequestException("'" + param + ".content' is required", param + ".content");
    }
    if (value instanceof String s) {
      return s;
    }
    if (value instanceof JsonArray parts) {
      StringBuilder text = new StringBuilder();
      for (Object part : parts) {
        if (!(part instanceof JsonObject p)
            || !"text".equals(p.getValue("type"))
            || !(p.getValue("text") instanceof String s)) {
          throw new InvalidRequestException(
              "'" + param + ".content' parts must be {\"type\":\"text\",\"text\":...};"
                  + " other content types are not supported", param + ".content");
        }
        text.append(s);
      }
      return text.toString();
    }
    throw JsonFields.typeError(param + ".content", "a string or an array of content parts");
  }

  private static String prompt(JsonFields f) {
    if (!f.has("prompt")) {
      throw new InvalidRequestException("'prompt' is required", "prompt");
    }
    List<String> prompts = f.stringOrStrings("prompt");
    if (prompts.size() != 1) {
      throw new InvalidRequestException(
          "Validation: exactly one prompt is supported per request, got " + prompts.size(),
          "prompt");
    }
    return prompts.get(0);
  }

  private static InvalidRequestException unsupported(String param) {
    return new InvalidRequestException("'" + param + "' is not supported by this server", param);
  }

  private static Set<String> union(Set<String> base, String... more) {
    Set<String> all = new java.util.HashSet<>(base);
    all.addAll(List.of(more));
    return Set.copyOf(all);
  }
}
