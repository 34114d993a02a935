package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.Stmt;
import java.time.Clock;
import java.time.LocalDateTime;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A Jinja2 template parsed once and rendered many times with Python's value semantics, as Hugging
 * Face transformers renders chat templates: {@code ImmutableSandboxedEnvironment(trim_blocks=True,
 * lstrip_blocks=True)} with loop controls, the {@code {% generation %}} tag, a {@code tojson} that
 * is {@code json.dumps(ensure_ascii=False)}, and the globals {@code raise_exception} and {@code
 * strftime_now}.
 *
 * <pre>{@code
 * JinjaTemplate t = JinjaTemplate.parse(source);
 * String prompt = t.render(Map.of("messages", messages, "add_generation_prompt", true));
 * }</pre>
 *
 * <p>Context values are Java values: {@code null} (None), Boolean, Integer/Long/BigInteger
 * (unbounded, as Python's int), Double, String, List, Map. Anything the renderer cannot do the way
 * Python would fails with a {@link TemplateError} that names it, never with a different prompt.
 * Instances are immutable and thread-safe.
 */
public final class JinjaTemplate {
  private final List<Stmt> body;
  private final Clock clock;

  private JinjaTemplate(List<Stmt> body, Clock clock) {
    this.body = body;
    this.clock = clock;
  }

  /** Parses {@code source}; {@code strftime_now} uses the system clock's local time. */
  public static JinjaTemplate parse(String source) {
    return parse(source, Clock.systemDefaultZone());
  }

  /** Parses {@code source}; {@code strftime_now} reads the local date-time of {@code clock}. */
  public static JinjaTemplate parse(String source, Clock clock) {
    try {
      return new JinjaTemplate(
          new Parser(Lexer.tokenize(source), Builtins.DEFAULT).parseTemplate(), clock);
    } catch (RuntimeException e) {
      throw TemplateError.from(e);
    } catch (StackOverflowError e) {
      throw stackTooSmall();
    }
  }

  /**
   * {@link Limits} keeps parsing and rendering far from the end of an ordinary thread's stack (512
   * KiB and more); a smaller one may still overflow, which fails the same way.
   */
  private static TemplateError stackTooSmall() {
    return TemplateError.of(
        "RecursionError", "maximum recursion depth exceeded (the thread's stack is too small)");
  }

  /** The same template with another clock for {@code strftime_now}. */
  public JinjaTemplate withClock(Clock clock) {
    return new JinjaTemplate(body, clock);
  }

  /**
   * Whether the template reads a message's content as OpenAI's list of parts: it loops over {@code
   * message.content} of a loop variable over {@code messages} (vLLM's automatic "openai" content
   * format; see {@link MessageContentLoops} for the exact rule). Otherwise it expects a string.
   */
  public boolean readsContentParts() {
    return MessageContentLoops.found(body);
  }

  /** Renders with the given variables (which win over the globals of the same name). */
  public String render(Map<String, ?> context) {
    Map<String, Object> globals = Globals.create();
    Clock c = clock;
    globals.put(
        "strftime_now",
        (PyCallable)
            (a, kw) -> Strftime.format(LocalDateTime.now(c), Py.str(Methods.arg(a, 0, "format"))));
    Frame root = new Frame(globals);
    StringBuilder out = new StringBuilder(4096);
    try {
      Map<String, Object> vars = new HashMap<>();
      for (Map.Entry<String, ?> e : context.entrySet()) {
        vars.put(e.getKey(), Py.normalize(e.getValue()));
      }
      Node.execAll(body, new Frame(root, vars), out);
    } catch (RuntimeException e) {
      throw TemplateError.from(e);
    } catch (StackOverflowError e) {
      throw stackTooSmall();
    }
    return out.toString();
  }
}
