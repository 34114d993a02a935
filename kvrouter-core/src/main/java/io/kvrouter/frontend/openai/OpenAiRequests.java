package io.kvrouter.frontend.openai;

import io.kvrouter.preprocess.ChatMessage;
import io.kvrouter.preprocess.OutputOptions;
import io.kvrouter.preprocess.Prompt;
import io.kvrouter.protocol.InvalidRequestException;
import io.kvrouter.protocol.PreprocessedRequest.SamplingOptions;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses and validates OpenAI request bodies with Dynamo's rules: ranges for sampling parameters,
 * at most four stop strings, non-empty messages, and every unknown or unsupported field rejected by
 * name (a silently ignored parameter would give the client something it did not ask for).
 */
public final class OpenAiRequests {
  private OpenAiRequests() {}

  static final int MAX_STOP_STRINGS = 4;

  /** Fields both APIs share. */
  private static final Set<String> COMMON =
      Set.of(
          "model",
          "stream",
          "stream_options",
          "max_tokens",
          "temperature",
          "top_p",
          "top_k",
          "min_p",
          "n",
          "stop",
          "stop_token_ids",
          "seed",
          "presence_penalty",
          "frequency_penalty",
          "repetition_penalty",
          "min_tokens",
          "ignore_eos",
          "user",
          "logit_bias",
          "logprobs",
          "skip_special_tokens",
          "include_stop_str_in_output",
          CacheSalts.FIELD,
          CacheSalts.NVEXT);

  private static final Set<String> CHAT =
      union(
          COMMON,
          "messages",
          "max_completion_tokens",
          "top_logprobs",
          "tools",
          "tool_choice",
          "parallel_tool_calls",
          "chat_template_kwargs",
          "add_generation_prompt",
          "continue_final_message");
  private static final Set<String> COMPLETIONS =
      union(COMMON, "prompt", "echo", "best_of", "add_special_tokens");

  /** Template variables a request sets through their own fields, not chat_template_kwargs. */
  private static final Set<String> RESERVED_TEMPLATE_VARIABLES =
      Set.of("messages", "tools", "documents", "add_generation_prompt", "continue_final_message");

  public static OpenAiRequest chat(JsonObject body) {
    JsonFields f = new JsonFields(body);
    f.rejectUnknown(CHAT);
    String maxTokensParam = "max_completion_tokens";
    Integer maxTokens = f.integer(maxTokensParam, 1, Integer.MAX_VALUE);
    if (maxTokens == null) {
      maxTokensParam = "max_tokens";
      maxTokens = f.integer(maxTokensParam, 1, Integer.MAX_VALUE);
    }
    Integer topLogprobs = f.integer("top_logprobs", 0, 20);
    boolean logprobs = f.bool("logprobs", false);
    if (topLogprobs != null && !logprobs) {
      throw new InvalidRequestException(
          "Validation: 'top_logprobs' needs 'logprobs' set to true", "top_logprobs");
    }
    List<ChatMessage> messages = ChatMessages.read(f.array("messages"));
    List<Map<String, Object>> tools = ChatTools.read(f.array("tools"));
    boolean parseToolCalls = ChatTools.callsExpected(f, tools);
    boolean continueFinal = f.bool("continue_final_message", false);
    Boolean addGenerationPrompt = f.bool("add_generation_prompt");
    if (continueFinal && Boolean.TRUE.equals(addGenerationPrompt)) {
      throw new InvalidRequestException(
          "Validation: 'continue_final_message' and 'add_generation_prompt' cannot both be true",
          "continue_final_message");
    }
    Prompt.Chat prompt =
        new Prompt.Chat(
            messages,
            !continueFinal && (addGenerationPrompt == null || addGenerationPrompt),
            continueFinal,
            tools,
            templateVariables(f.object("chat_template_kwargs")));
    return common(
        f,
        List.of(prompt),
        maxTokens,
        maxTokensParam,
        false,
        true,
        parseToolCalls,
        logprobs ? (topLogprobs == null ? 0 : topLogprobs) : null);
  }

  public static OpenAiRequest completion(JsonObject body) {
    JsonFields f = new JsonFields(body);
    f.rejectUnknown(COMPLETIONS);
    Integer bestOf = f.integer("best_of", 1, 128);
    if (bestOf != null && bestOf > 1) {
      throw unsupported("best_of");
    }
    Integer logprobs = f.integer("logprobs", 0, 20);
    Integer maxTokens = f.integer("max_tokens", 1, Integer.MAX_VALUE);
    List<Prompt> prompts =
        CompletionPrompt.read(body.getValue("prompt"), f.bool("add_special_tokens", true));
    return common(
        f, prompts, maxTokens, "max_tokens", f.bool("echo", false), false, false, logprobs);
  }

  private static Map<String, Object> templateVariables(JsonObject kwargs) {
    if (kwargs == null) {
      return Map.of();
    }
    for (String name : kwargs.fieldNames()) {
      if (RESERVED_TEMPLATE_VARIABLES.contains(name)) {
        throw new InvalidRequestException(
            "'chat_template_kwargs."
                + name
                + "' is not allowed: the request sets '"
                + name
                + "' through its own field",
            "chat_template_kwargs");
      }
    }
    return JsonValues.plainMap(kwargs);
  }

  private static OpenAiRequest common(
      JsonFields f,
      List<Prompt> prompts,
      Integer maxTokens,
      String maxTokensParam,
      boolean echo,
      boolean parseReasoning,
      boolean parseToolCalls,
      Integer logprobs) {
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
              "Validation: 'logit_bias' values must be numbers between -100 and 100", "logit_bias");
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
    Integer minTokens = f.integer("min_tokens", 0, Integer.MAX_VALUE);
    if (minTokens != null && maxTokens != null && minTokens > maxTokens) {
      throw new InvalidRequestException(
          "Validation: 'min_tokens' ("
              + minTokens
              + ") must not be more than '"
              + maxTokensParam
              + "' ("
              + maxTokens
              + ")",
          "min_tokens");
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
        prompts,
        maxTokens,
        maxTokensParam,
        stop,
        f.integers("stop_token_ids"),
        minTokens,
        f.bool("ignore_eos", false),
        sampling,
        new OutputOptions(
            f.bool("skip_special_tokens", true),
            f.bool("include_stop_str_in_output", false),
            echo,
            parseReasoning,
            parseToolCalls,
            logprobs),
        CacheSalts.fromBody(f));
  }

  static InvalidRequestException unsupported(String param) {
    return new InvalidRequestException("'" + param + "' is not supported by this server", param);
  }

  private static Set<String> union(Set<String> base, String... more) {
    Set<String> all = new java.util.HashSet<>(base);
    all.addAll(List.of(more));
    return Set.copyOf(all);
  }
}
