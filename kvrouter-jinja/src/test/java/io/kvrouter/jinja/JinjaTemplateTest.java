package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The public surface: parse once, render many; errors that name the construct and the line. */
class JinjaTemplateTest {

  private static String render(String source, Map<String, ?> vars) {
    return JinjaTemplate.parse(source).render(vars);
  }

  /** Expected strings from Python Jinja2 3.1.6 (transformers' environment and tojson). */
  @Test
  void floatsPrintAsPythonsShortestRepr() {
    assertThat(
            render(
                "{{ 1e-5 }} {{ 1.1e-5|tojson }} {{ 0.0001 }} {{ 1.0e23 }} {{ 8.41e21 }} {{ 5e-324 }}"
                    + " {{ 0.1 + 0.2 }} {{ 2.5e-4 }}",
                Map.of()))
        .isEqualTo("1e-05 1.1e-05 0.0001 1e+23 8.41e+21 5e-324 0.30000000000000004 0.00025");
  }

  /** Where Python runs out of memory, the render fails (integers: the bigint snippets). */
  @Test
  void countsBeyondTheLimitsFailInsteadOfWrapping() {
    for (String source : List.of("{{ 'ab' * 4294967297 }}", "{{ [1] * 100000000000 }}")) {
      assertThatThrownBy(() -> render(source, Map.of()))
          .as(source)
          .isInstanceOf(TemplateError.class);
    }
    assertThat(render("{{ 'ab' * 3 }}{{ [1] * 2 }}{{ 'x' * -1 }}", Map.of()))
        .isEqualTo("ababab[1, 1]");
  }

  @Test
  void parsesOnceAndRendersManyTimesWithDifferentContexts() {
    JinjaTemplate t =
        JinjaTemplate.parse("{% for m in messages %}{{ m.role }}:{{ m.content }};{% endfor %}");
    assertThat(t.render(Map.of("messages", List.of(Map.of("role", "user", "content", "a")))))
        .isEqualTo("user:a;");
    assertThat(t.render(Map.of("messages", List.of()))).isEmpty();
  }

  @Test
  void acceptsJavaValuesOfAnyIntegralTypeAndArrays() {
    Map<String, Object> vars = new HashMap<>();
    vars.put("i", 3);
    vars.put("f", 1.5f);
    vars.put("a", new Object[] {1, "x"});
    vars.put("n", null);
    assertThat(render("{{ i + 1 }}|{{ i is integer }}|{{ f }}|{{ a }}|{{ n }}", vars))
        .isEqualTo("4|True|1.5|[1, 'x']|None");
  }

  @Test
  void doesNotMutateTheCallersValues() {
    Map<String, Object> m = new HashMap<>(Map.of("k", "v"));
    render("{% set x = m %}{{ x.k }}", Map.of("m", m));
    assertThat(m).containsOnly(Map.entry("k", "v"));
  }

  @Test
  void strftimeNowReadsTheInjectedClocksLocalTime() {
    Clock clock = Clock.fixed(Instant.parse("2024-12-31T23:30:00Z"), ZoneId.of("Asia/Tokyo"));
    JinjaTemplate t = JinjaTemplate.parse("{{ strftime_now('%d %B %Y %H:%M') }}", clock);
    assertThat(t.render(Map.of())).isEqualTo("01 January 2025 08:30");
    Clock other = Clock.fixed(Instant.parse("2024-12-31T23:30:00Z"), ZoneId.of("UTC"));
    assertThat(t.withClock(other).render(Map.of())).isEqualTo("31 December 2024 23:30");
  }

  @Test
  void raiseExceptionCarriesTheTemplatesMessageAndLine() {
    assertThatThrownBy(
            () -> render("line1\n{{ raise_exception('no ' ~ x) }}", Map.of("x", "tools")))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.raisedByTemplate()).isTrue();
              assertThat(e.kind()).isEqualTo("TemplateError");
              assertThat(e.pythonMessage()).isEqualTo("no tools");
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.getMessage()).isEqualTo("TemplateError: no tools (template line 2)");
            });
  }

  @Test
  void runtimeErrorsNameTheInnermostStatementsLine() {
    String src =
        "{% for m in messages %}\n{% if m.content %}\n{{ m.content + 1 }}\n{% endif %}\n{% endfor %}";
    assertThatThrownBy(() -> render(src, Map.of("messages", List.of(Map.of("content", "a")))))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.kind()).isEqualTo("TypeError");
              assertThat(e.pythonMessage())
                  .isEqualTo("can only concatenate str (not \"int\") to str");
              assertThat(e.line()).isEqualTo(3);
            });
  }

  @Test
  void unsupportedStatementsFailAtParseNamingTheTagAndLine() {
    for (String tag :
        Arrays.asList(
            "include 'x'",
            "import 'x' as y",
            "extends 'x'",
            "block b",
            "with a = 1",
            "autoescape true")) {
      assertThatThrownBy(() -> JinjaTemplate.parse("a\nb\n{% " + tag + " %}"))
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("TemplateSyntaxError");
                assertThat(e.pythonMessage()).contains("unsupported").contains(tag.split(" ")[0]);
                assertThat(e.line()).isEqualTo(3);
              });
    }
  }

  /** Jinja2's filters this renderer does not implement parse, and fail when they are used. */
  @Test
  void unimplementedJinjaFiltersFailWhenUsedNamingThem() {
    for (String filter :
        List.of(
            "wordwrap",
            "urlize",
            "xmlattr",
            "striptags",
            "pprint",
            "filesizeformat",
            "random",
            "slice(2)",
            "urlencode")) {
      JinjaTemplate t = JinjaTemplate.parse("{% if x %}\n{{ x|" + filter + " }}{% endif %}ok");
      assertThat(t.render(Map.of("x", false))).isEqualTo("ok");
      assertThatThrownBy(() -> t.render(Map.of("x", "text")))
          .as(filter)
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("Unsupported");
                assertThat(e.pythonMessage()).endsWith("the filter " + filter.replace("(2)", ""));
                assertThat(e.line()).isEqualTo(2);
              });
    }
  }

  @Test
  void unknownFiltersAndTestsFailAtParse() {
    assertThatThrownBy(() -> JinjaTemplate.parse("\n{{ x|frobnicate }}"))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.getMessage())
                  .isEqualTo(
                      "TemplateAssertionError: No filter named 'frobnicate'. (template line 2)");
            });
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ x is frobnicated }}"))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("No test named 'frobnicated'.");
  }

  @Test
  void constructsPythonWouldRenderDifferentlyFailInsteadOfGuessing() {
    for (String src :
        List.of(
            "{{ d.items }}",
            "{{ [1]|select }}",
            "{{ [1]|reverse ~ '' }}",
            "{{ [[1]|map('string')] }}",
            "{{ x|items|string }}")) {
      assertThatThrownBy(() -> render(src, Map.of("d", Map.of(), "x", Map.of())))
          .as(src)
          .isInstanceOf(TemplateError.class)
          .hasMessageContaining("memory address");
    }
    assertThatThrownBy(() -> render("{{ '{:>5}'.format(1) }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("str.format field spec");
    assertThatThrownBy(() -> render("{{ 'abc'.startswith('b', 1) }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("str.startswith with 2 arguments");
    assertThatThrownBy(() -> render("{{ 'abc'.strip(chars='a') }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("str.strip with keyword argument chars");
    assertThatThrownBy(() -> render("{{ strftime_now('%Z') }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("strftime directive %Z");
    // CPython may or may not share one object for equal strings, floats and big ints
    for (String src :
        List.of(
            "{{ 'hello' is sameas 'hello' }}",
            "{{ 257 is sameas 257 }}",
            "{% set a = 'x y' %}{% set b = 'x y' %}{{ a is sameas b }}",
            "{{ 1.5 is sameas 1.5 }}",
            "{{ (1, 2) is sameas((1, 2)) }}",
            "{{ s is sameas 'hello' }}")) {
      assertThatThrownBy(() -> render(src, Map.of("s", "hello")))
          .as(src)
          .isInstanceOf(TemplateError.class)
          .hasMessageContaining("sameas test on two equal");
    }
    assertThatThrownBy(() -> render("{{ d.keys() < d.keys() }}", Map.of("d", Map.of())))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("set comparisons of dict keys and items views");
    assertThatThrownBy(() -> render("{{ 3 is divisibleby(num=3) }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("keyword arguments to the test divisibleby");
  }

  /**
   * Python builds a Markup from these, escaping what they add: rather than lose the difference,
   * they fail (printing, ~, +, ==, measuring, iterating and the escaping filters work, see the
   * "markup" snippets).
   */
  @Test
  void markupOperationsThatWouldEscapeTheirArgumentsFailClearly() {
    for (String src :
        List.of(
            "{{ x[0] }}",
            "{{ x[1:] }}",
            "{{ x * 2 }}",
            "{{ x % 1 }}",
            "{{ x.upper() }}",
            "{{ x|trim }}",
            "{{ x|last }}",
            "{{ x|reverse }}",
            "{{ x|center(9) }}",
            "{{ {x: 1} }}",
            "{{ [x]|map('indent')|list }}")) {
      assertThatThrownBy(() -> render("{% set x = '<a>'|e %}" + src, Map.of()))
          .as(src)
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("Unsupported");
                assertThat(e.pythonMessage()).contains("of an escaped string (Markup");
              });
    }
  }

  @Test
  void filterArgumentsPythonWouldRejectAreRejected() {
    for (String src :
        List.of(
            "{{ 1|tojson(foo=1) }}",
            "{{ 'a'|trim('a', 2) }}",
            "{{ 'a'|upper(1) }}",
            "{{ 'a'|replace('a', 'b', count=1, old='x') }}")) {
      assertThatThrownBy(() -> render(src, Map.of()))
          .as(src)
          .isInstanceOfSatisfying(
              TemplateError.class, e -> assertThat(e.kind()).isEqualTo("TypeError"));
    }
  }

  @Test
  void syntaxErrorsNameTheLine() {
    assertThatThrownBy(() -> JinjaTemplate.parse("a\n{% if x %}\nb"))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.kind()).isEqualTo("TemplateSyntaxError");
              assertThat(e.line()).isEqualTo(2);
              assertThat(e.pythonMessage()).contains("'endif'");
            });
    assertThatThrownBy(() -> JinjaTemplate.parse("{{ 1 + }}"))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("expected an expression");
  }

  @Test
  void sandboxRefusesMutatingMethods() {
    assertThatThrownBy(() -> render("{% set l = [] %}{{ l.append(1) }}", Map.of()))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.kind()).isEqualTo("SecurityError");
              assertThat(e.unexpected()).isFalse();
              assertThat(e.pythonMessage())
                  .isEqualTo("access to attribute 'append' of 'list' object is unsafe.");
            });
  }

  @Test
  void unexpectedJavaExceptionsBecomeInternalErrorsAtTheirLine() {
    for (RuntimeException thrown :
        List.of(
            new ClassCastException("cce"),
            new ArithmeticException("ae"),
            new IndexOutOfBoundsException("ioobe"),
            new NumberFormatException("nfe"),
            new NullPointerException("npe"))) {
      PyCallable failing =
          (a, kw) -> {
            throw thrown;
          };
      for (String src :
          List.of(
              "a\n{{ f() }}",
              "a\n{% if f() %}{% endif %}",
              "a\n{% for x in f() %}{% endfor %}",
              "a\n{% set x = f() %}",
              "a\n{% set x %}{{ f() }}{% endset %}",
              "a\n{% filter upper %}{{ f() }}{% endfilter %}",
              "{% macro m() %}\n{{ f() }}{% endmacro %}{{ m() }}")) {
        assertThatThrownBy(() -> render(src, Map.of("f", failing)))
            .as(src)
            .isInstanceOfSatisfying(
                TemplateError.class,
                e -> {
                  assertThat(e.kind()).isEqualTo("InternalError");
                  assertThat(e.unexpected()).isTrue();
                  assertThat(e.pythonMessage())
                      .contains(thrown.getClass().getSimpleName())
                      .contains(thrown.getMessage());
                  assertThat(e.getCause()).isSameAs(thrown);
                  assertThat(e.line()).isEqualTo(2);
                });
      }
    }
  }

  @Test
  void errorsOfSetAndFilterBlocksNameTheirLine() {
    for (String src :
        List.of(
            "a\n{% set x | indent(foo=1) %}\nbody\n{% endset %}",
            "a\n{% filter indent(foo=1) %}\nbody\n{% endfilter %}")) {
      assertThatThrownBy(() -> render(src, Map.of()))
          .as(src)
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("TypeError");
                assertThat(e.line()).isEqualTo(2);
              });
    }
  }

  @Test
  void contextValuesOfOtherJavaTypesAreRejectedAsTemplateErrors() {
    assertThatThrownBy(() -> render("{{ x }}", Map.of("x", new Object())))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.kind()).isEqualTo("Unsupported");
              assertThat(e.pythonMessage()).contains("java.lang.Object");
            });
  }

  @Test
  void deepRecursionFailsCleanly() {
    assertThatThrownBy(() -> render("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", Map.of()))
        .isInstanceOf(TemplateError.class)
        .hasMessageContaining("recursion");
  }
}
