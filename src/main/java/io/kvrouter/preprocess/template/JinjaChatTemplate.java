package io.kvrouter.preprocess.template;

import io.kvrouter.preprocess.ChatMessage;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.LegacyOverrides;
import com.hubspot.jinjava.el.JinjavaInterpreterResolver;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.RenderResult;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.lib.filter.Filter;
import com.hubspot.jinjava.lib.fn.ELFunctionDefinition;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jinjava.javax.el.CompositeELResolver;

/**
 * A Hugging Face chat template rendered with Jinjava, configured as close to transformers' {@code
 * apply_chat_template} as Jinjava allows. transformers uses {@code
 * ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)} with the {@code
 * loopcontrols} extension, a {@code tojson} filter with {@code ensure_ascii=False}, and the globals
 * {@code raise_exception} and {@code strftime_now}; all of these are provided here.
 *
 * <p>Every Jinjava error (syntax, unknown method or function, failed call) fails the render with a
 * {@link ChatTemplateException}: Jinjava by itself would record it and keep going, producing a
 * different prompt.
 *
 * <p>Bridging Jinja2 and Jinjava (first pass):
 *
 * <ul>
 *   <li>Python {@code str} methods ({@code startswith}, {@code split}, {@code lstrip('\n')}, ...)
 *       come from {@link PyStringMethods}.
 *   <li>The source is adapted before parsing: {@code name[::-1]} becomes {@code (name|reverse)}
 *       (Jinjava has no step slices), and each {@code namespace(k=expr)} argument is parenthesized
 *       (Jinjava binds {@code k=a|f - 1} as {@code (k=a|f) - 1}). The rewrite is textual, so it
 *       would also touch such text outside Jinja tags.
 * </ul>
 *
 * Known remaining differences: booleans print as {@code true}/{@code false} (Python: {@code
 * True}/{@code False}); slices with a step other than {@code [::-1]}; Python methods on lists and
 * dicts beyond what Jinjava has. The Llama 3 and Qwen3 templates render byte-identical to Python
 * jinja2 in the cases under {@code src/test/resources/golden/templates}.
 *
 * <p>The template is parsed on every render (about 0.3 ms for Qwen3's); the shared Jinjava engine
 * is thread-safe.
 */
final class JinjaChatTemplate implements ChatTemplate {

  private static final Jinjava JINJAVA = createJinjava();

  private final String source;
  private final String bosToken;
  private final String eosToken;

  private JinjaChatTemplate(String source, String bosToken, String eosToken) {
    this.source = source;
    this.bosToken = bosToken;
    this.eosToken = eosToken;
  }

  static JinjaChatTemplate create(String source, String bosToken, String eosToken) {
    Objects.requireNonNull(source, "source");
    if (source.isBlank()) {
      throw new ChatTemplateException(
          "the chat template is empty", ChatTemplateException.Reason.FAILED);
    }
    return new JinjaChatTemplate(adaptSource(source), bosToken, eosToken);
  }

  private static final Pattern REVERSE_SLICE =
      Pattern.compile(
          "([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)\\[\\s*:\\s*:\\s*-1\\s*]");
  private static final Pattern NAMESPACE_CALL = Pattern.compile("\\bnamespace\\s*\\(");
  private static final Pattern KEYWORD_ARG =
      Pattern.compile("(?s)^(\\s*[A-Za-z_][A-Za-z0-9_]*\\s*=)(?!=)(.*?)(\\s*)$");

  /** Rewrites the Jinja2 constructs Jinjava parses differently (see the class comment). */
  static String adaptSource(String source) {
    String s = REVERSE_SLICE.matcher(source).replaceAll("($1|reverse)");
    StringBuilder out = new StringBuilder(s.length() + 16);
    Matcher m = NAMESPACE_CALL.matcher(s);
    int pos = 0;
    while (m.find(pos)) {
      int open = m.end() - 1;
      int close = matchingParen(s, open);
      if (close < 0) {
        break; // unbalanced: leave it for the parser to report
      }
      out.append(s, pos, open + 1);
      List<String> args = splitTopLevel(s.substring(open + 1, close));
      for (int i = 0; i < args.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        Matcher kw = KEYWORD_ARG.matcher(args.get(i));
        if (kw.matches() && !kw.group(2).isBlank()) {
          out.append(kw.group(1)).append('(').append(kw.group(2)).append(')').append(kw.group(3));
        } else {
          out.append(args.get(i));
        }
      }
      out.append(')');
      pos = close + 1;
    }
    out.append(s, pos, s.length());
    return out.toString();
  }

  /** The index of the parenthesis closing the one at {@code open}, skipping quoted strings. */
  private static int matchingParen(String s, int open) {
    int end = scanOutsideQuotes(s, open, (i, c, depth) -> !(depth == 0 && isCloser(c)));
    return end >= 0 && s.charAt(end) == ')' ? end : -1;
  }

  /** Splits call arguments at commas outside brackets and quotes. */
  private static List<String> splitTopLevel(String args) {
    List<String> parts = new ArrayList<>();
    int[] start = {0};
    scanOutsideQuotes(
        args,
        0,
        (i, c, depth) -> {
          if (c == ',' && depth == 0) {
            parts.add(args.substring(start[0], i));
            start[0] = i + 1;
          }
          return true;
        });
    parts.add(args.substring(start[0]));
    return parts;
  }

  /** Sees one character outside quoted strings, with the bracket depth after it. */
  private interface CharVisitor {
    /** Returns false to stop the scan at this character. */
    boolean visit(int index, char c, int depth);
  }

  /**
   * Walks {@code s} from {@code from}, skipping quoted strings (with backslash escapes) and
   * tracking bracket depth; returns the index where {@code visitor} stopped, or -1.
   */
  private static int scanOutsideQuotes(String s, int from, CharVisitor visitor) {
    int depth = 0;
    char quote = 0;
    for (int i = from; i < s.length(); i++) {
      char c = s.charAt(i);
      if (quote != 0) {
        if (c == '\\') {
          i++;
        } else if (c == quote) {
          quote = 0;
        }
        continue;
      }
      if (c == '\'' || c == '"') {
        quote = c;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') {
        depth++;
      } else if (isCloser(c)) {
        depth--;
      }
      if (!visitor.visit(i, c, depth)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean isCloser(char c) {
    return c == ')' || c == ']' || c == '}';
  }

  private static Jinjava createJinjava() {
    LegacyOverrides overrides =
        LegacyOverrides.newBuilder()
            .withParseWhitespaceControlStrictly(true)
            .withUseTrimmingForNotesAndExpressions(true)
            .withUseNaturalOperatorPrecedence(true)
            .withKeepNullableLoopValues(true)
            .withUsePyishObjectMapper(true)
            .withAllowAdjacentTextNodes(true)
            .withHandleBackslashInQuotesOnly(true)
            .withDefaultKeepTrailingNewlineBehavior(true)
            .build();
    JinjavaConfig config =
        JinjavaConfig.newBuilder()
            .withTrimBlocks(true)
            .withLstripBlocks(true)
            .withLegacyOverrides(overrides)
            .withElResolver(resolver())
            .build();
    Jinjava jinjava = new Jinjava(config);
    try {
      Method raise = TemplateFunctions.class.getDeclaredMethod("raiseException", Object.class);
      raise.setAccessible(true);
      jinjava
          .getGlobalContext()
          .registerFunction(new ELFunctionDefinition("", "raise_exception", raise));
      Method strftime = TemplateFunctions.class.getDeclaredMethod("strftimeNow", String.class);
      strftime.setAccessible(true);
      jinjava
          .getGlobalContext()
          .registerFunction(new ELFunctionDefinition("", "strftime_now", strftime));
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    jinjava.getGlobalContext().registerFilter(new ToJsonFilter());
    return jinjava;
  }

  private static CompositeELResolver resolver() {
    CompositeELResolver resolver = new CompositeELResolver();
    resolver.add(new PyStringMethods());
    resolver.add(JinjavaInterpreterResolver.DEFAULT_RESOLVER_READ_ONLY);
    return resolver;
  }

  @Override
  public String render(
      List<ChatMessage> messages, boolean addGenerationPrompt, Map<String, ?> extraVariables) {
    Objects.requireNonNull(messages, "messages");
    Map<String, Object> bindings = new HashMap<>();
    if (extraVariables != null) {
      bindings.putAll(extraVariables);
    }
    List<Map<String, Object>> msgs = new ArrayList<>(messages.size());
    for (ChatMessage m : messages) {
      Map<String, Object> map = new LinkedHashMap<>();
      map.put("role", m.role());
      map.put("content", m.content());
      msgs.add(map);
    }
    bindings.put("messages", msgs);
    bindings.put("add_generation_prompt", addGenerationPrompt);
    if (bosToken != null) {
      bindings.putIfAbsent("bos_token", bosToken);
    }
    if (eosToken != null) {
      bindings.putIfAbsent("eos_token", eosToken);
    }

    RenderResult result;
    try {
      result = JINJAVA.renderForResult(source, bindings);
    } catch (TemplateRaisedException e) {
      throw new ChatTemplateException(e.getMessage(), ChatTemplateException.Reason.REJECTED, e);
    } catch (RuntimeException e) {
      throw new ChatTemplateException(
          "chat template failed to render: " + rootMessage(e),
          ChatTemplateException.Reason.FAILED,
          e);
    }
    List<TemplateError> errors = new ArrayList<>();
    for (TemplateError error : result.getErrors()) {
      if (error.getSeverity() != TemplateError.ErrorType.WARNING) {
        errors.add(error);
      }
    }
    if (!errors.isEmpty()) {
      throw failure(errors);
    }
    return result.getOutput();
  }

  private static ChatTemplateException failure(List<TemplateError> errors) {
    for (TemplateError error : errors) {
      TemplateRaisedException raised = findRaised(error.getException());
      if (raised != null) {
        return new ChatTemplateException(
            raised.getMessage(), ChatTemplateException.Reason.REJECTED, raised);
      }
    }
    StringBuilder sb = new StringBuilder("chat template failed to render: ");
    for (int i = 0; i < errors.size(); i++) {
      TemplateError e = errors.get(i);
      if (i > 0) {
        sb.append("; ");
      }
      sb.append(e.getMessage());
      String detail = e.getException() == null ? null : rootMessage(e.getException());
      if (detail != null && !e.getMessage().contains(detail)) {
        sb.append(" (").append(detail).append(')');
      }
      if (e.getLineno() > 0) {
        sb.append(" (line ").append(e.getLineno()).append(')');
      }
    }
    Exception cause = errors.get(0).getException();
    return new ChatTemplateException(sb.toString(), ChatTemplateException.Reason.FAILED, cause);
  }

  private static TemplateRaisedException findRaised(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof TemplateRaisedException r) {
        return r;
      }
    }
    return null;
  }

  private static String rootMessage(Throwable t) {
    String message = t.getMessage();
    for (Throwable c = t.getCause(); c != null && c != t; c = c.getCause()) {
      if (c.getMessage() != null) {
        message = c.getMessage();
      }
      t = c;
    }
    return message;
  }

  @Override
  public String toString() {
    return "JinjaChatTemplate[" + source.length() + " chars]";
  }

  /** Thrown by {@code raise_exception(message)} inside a template. */
  static final class TemplateRaisedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    TemplateRaisedException(String message) {
      super(message, null, false, false);
    }
  }

  /** Functions exposed to templates. */
  static final class TemplateFunctions {
    private TemplateFunctions() {}

    static Object raiseException(Object message) {
      throw new TemplateRaisedException(String.valueOf(message));
    }

    /** transformers' {@code strftime_now(format)}: the local time in a Python strftime format. */
    static String strftimeNow(String format) {
      return strftime(java.time.LocalDateTime.now(), format);
    }

    /** Python's {@code strftime} for the common directives; others fail loudly. */
    static String strftime(java.time.LocalDateTime t, String format) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < format.length(); i++) {
        char c = format.charAt(i);
        if (c != '%' || i + 1 == format.length()) {
          sb.append(c);
          continue;
        }
        char d = format.charAt(++i);
        java.util.Locale en = java.util.Locale.ENGLISH;
        switch (d) {
          case 'Y' -> sb.append(String.format("%04d", t.getYear()));
          case 'y' -> sb.append(String.format("%02d", t.getYear() % 100));
          case 'm' -> sb.append(String.format("%02d", t.getMonthValue()));
          case 'd' -> sb.append(String.format("%02d", t.getDayOfMonth()));
          case 'H' -> sb.append(String.format("%02d", t.getHour()));
          case 'I' -> sb.append(String.format("%02d", (t.getHour() + 11) % 12 + 1));
          case 'M' -> sb.append(String.format("%02d", t.getMinute()));
          case 'S' -> sb.append(String.format("%02d", t.getSecond()));
          case 'p' -> sb.append(t.getHour() < 12 ? "AM" : "PM");
          case 'j' -> sb.append(String.format("%03d", t.getDayOfYear()));
          case 'b' -> sb.append(t.getMonth().getDisplayName(java.time.format.TextStyle.SHORT, en));
          case 'B' -> sb.append(t.getMonth().getDisplayName(java.time.format.TextStyle.FULL, en));
          case 'a' ->
              sb.append(t.getDayOfWeek().getDisplayName(java.time.format.TextStyle.SHORT, en));
          case 'A' ->
              sb.append(t.getDayOfWeek().getDisplayName(java.time.format.TextStyle.FULL, en));
          case '%' -> sb.append('%');
          default ->
              throw new IllegalArgumentException("strftime_now: unsupported directive %" + d);
        }
      }
      return sb.toString();
    }
  }

  /** Hugging Face's {@code tojson}: {@code json.dumps(x, ensure_ascii=False, ...)}. */
  static final class ToJsonFilter implements Filter {
    @Override
    public String getName() {
      return "tojson";
    }

    @Override
    public Object filter(Object var, JinjavaInterpreter interpreter, String... args) {
      return filter(var, interpreter, args, Map.of());
    }

    @Override
    public Object filter(
        Object var, JinjavaInterpreter interpreter, Object[] args, Map<String, Object> kwargs) {
      Integer indent = null;
      Object indentArg =
          kwargs.containsKey("indent")
              ? kwargs.get("indent")
              : (args != null && args.length > 0 ? args[0] : null);
      if (indentArg != null) {
        indent = Integer.valueOf(indentArg.toString());
      }
      boolean ensureAscii = truthy(kwargs.get("ensure_ascii"));
      boolean sortKeys = truthy(kwargs.get("sort_keys"));
      String itemSep = null;
      String keySep = null;
      if (kwargs.get("separators") instanceof List<?> seps && seps.size() == 2) {
        itemSep = String.valueOf(seps.get(0));
        keySep = String.valueOf(seps.get(1));
      }
      return new PythonJson(ensureAscii, indent, itemSep, keySep, sortKeys).write(var);
    }

    private static boolean truthy(Object o) {
      return o instanceof Boolean b ? b : o != null && Boolean.parseBoolean(o.toString());
    }
  }
}
