package io.kvrouter.preprocess.template;

import io.kvrouter.jinja.JinjaTemplate;
import io.kvrouter.jinja.TemplateError;
import io.kvrouter.preprocess.ChatMessage;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Hugging Face chat template rendered by our own Jinja2 interpreter ({@link JinjaTemplate}) with
 * Python's semantics and transformers' {@code apply_chat_template} settings: {@code trim_blocks},
 * {@code lstrip_blocks}, loop controls, the sandbox, {@code tojson} as transformers defines it, and
 * the globals {@code raise_exception} and {@code strftime_now}. The variables are {@code messages},
 * {@code add_generation_prompt}, {@code bos_token} and {@code eos_token} when the tokenizer has
 * them, {@code tools} and {@code documents} (None unless given), and any extra variables (such as
 * {@code enable_thinking}). Messages reach the template as vLLM shapes them (see {@link
 * #asTemplateSees}); a template that loops over a message's {@code content} by vLLM's rule ({@link
 * JinjaTemplate#readsContentParts()}) gets OpenAI's list of text parts, any other one string.
 *
 * <p>Parsed once, rendered many times, from any thread. A {@code raise_exception} in the template
 * rejects the conversation with its message ({@link ChatTemplateException.Reason#REJECTED}); any
 * other error, including a construct the interpreter does not implement, fails the render with
 * Python's exception type, message and template line ({@link ChatTemplateException.Reason#FAILED}),
 * never a silently different prompt.
 */
final class JinjaChatTemplate implements ChatTemplate {
  private final JinjaTemplate template;
  private final String bosToken;
  private final String eosToken;

  /** The template reads a message's content as parts (vLLM's "openai" format), not one string. */
  private final boolean readsContentParts;

  private JinjaChatTemplate(JinjaTemplate template, String bosToken, String eosToken) {
    this.template = template;
    this.bosToken = bosToken;
    this.eosToken = eosToken;
    this.readsContentParts = template.readsContentParts();
  }

  static JinjaChatTemplate create(String source, String bosToken, String eosToken) {
    Objects.requireNonNull(source, "source");
    if (source.isBlank()) {
      throw new ChatTemplateException(
          "chat template is empty", ChatTemplateException.Reason.FAILED, null);
    }
    try {
      return new JinjaChatTemplate(JinjaTemplate.parse(source), bosToken, eosToken);
    } catch (TemplateError e) {
      throw failure("chat template does not parse", e);
    }
  }

  @Override
  public String render(
      List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> extraVariables) {
    Objects.requireNonNull(messages, "messages");
    Map<String, Object> context = new HashMap<>();
    // transformers passes tools and documents as None when the request has none
    context.put("tools", null);
    context.put("documents", null);
    if (extraVariables != null) {
      context.putAll(extraVariables);
    }
    List<Map<String, Object>> msgs = new ArrayList<>(messages.size());
    for (ChatMessage m : messages) {
      msgs.add(asTemplateSees(m));
    }
    context.put("messages", msgs);
    context.put("add_generation_prompt", addGenerationPrompt);
    if (bosToken != null) {
      context.putIfAbsent("bos_token", bosToken);
    }
    if (eosToken != null) {
      context.putIfAbsent("eos_token", eosToken);
    }
    try {
      return template.render(context);
    } catch (TemplateError e) {
      if (e.raisedByTemplate()) {
        throw new ChatTemplateException(
            e.pythonMessage(), ChatTemplateException.Reason.REJECTED, e);
      }
      if (e.unexpected()) {
        // a Java exception inside the renderer, not the template's error: its message may name
        // Java classes, so it is not a ChatTemplateException, whose message a client may read
        throw new IllegalStateException("the chat template renderer failed unexpectedly", e);
      }
      throw failure("chat template failed to render", e);
    }
  }

  @Override
  public boolean readsContentParts() {
    return readsContentParts;
  }

  @Override
  public ChatTemplate withClock(Clock clock) {
    return new JinjaChatTemplate(template.withClock(clock), bosToken, eosToken);
  }

  /**
   * A message as vLLM hands it to the template ({@code _parse_chat_message_content} in {@code
   * vllm/entrypoints/chat_utils.py} at commit {@code 001eadcf295d90aa0664963cd6a9d93f38a2f3da}),
   * its keys in vLLM's order: the content as one string (text parts joined with newlines, none as
   * the empty string), or, for a template that reads parts ({@link
   * JinjaTemplate#readsContentParts()}), as a list of {@code {"type":"text","text":...}} parts (but
   * a tool message's text parts still as one string, as vLLM has it since most templates print a
   * tool result as text); tool calls as vLLM's request model validates them, keys in the order of
   * OpenAI's type ({@code id}, {@code function} with {@code arguments} before {@code name}, {@code
   * type}), the arguments as a value; the reasoning under both {@code reasoning} and {@code
   * reasoning_content}; a developer message's {@code tools}, which vLLM sets (to None here, as the
   * router takes no tools in a message).
   */
  private Map<String, Object> asTemplateSees(ChatMessage m) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("role", m.role());
    map.put(
        "content", readsContentParts && !m.role().equals("tool") ? parts(m.content()) : m.text());
    if (!m.toolCalls().isEmpty()) {
      List<Map<String, Object>> calls = new ArrayList<>(m.toolCalls().size());
      for (ChatMessage.ToolCall call : m.toolCalls()) {
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("arguments", call.arguments());
        function.put("name", call.name());
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", call.id());
        entry.put("function", function);
        entry.put("type", "function");
        calls.add(entry);
      }
      map.put("tool_calls", calls);
    }
    if (m.reasoning() != null) {
      map.put("reasoning", m.reasoning());
      map.put("reasoning_content", m.reasoning());
    }
    if (m.toolCallId() != null) {
      map.put("tool_call_id", m.toolCallId());
    }
    if (m.name() != null) {
      map.put("name", m.name());
    }
    if (m.role().equals("developer")) {
      map.put("tools", null);
    }
    return map;
  }

  private static List<Map<String, Object>> parts(ChatMessage.Content content) {
    List<String> texts =
        content == null
            ? List.of()
            : content instanceof ChatMessage.Content.Parts p ? p.texts() : List.of(content.text());
    List<Map<String, Object>> parts = new ArrayList<>(texts.size());
    for (String text : texts) {
      Map<String, Object> part = new LinkedHashMap<>();
      part.put("type", "text");
      part.put("text", text);
      parts.add(part);
    }
    return parts;
  }

  private static ChatTemplateException failure(String what, TemplateError e) {
    return new ChatTemplateException(
        what + ": " + e.getMessage(), ChatTemplateException.Reason.FAILED, e);
  }
}
