package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Hostile or broken templates and requests fail with a {@link TemplateError} that names the limit
 * they ran into, never with a Java error (StackOverflowError, OutOfMemoryError) or a bare
 * RuntimeException.
 */
class JinjaLimitsTest {

  private static String render(String source) {
    return JinjaTemplate.parse(source).render(Map.of());
  }

  private static TemplateError parseError(String source) {
    try {
      JinjaTemplate.parse(source);
    } catch (TemplateError e) {
      return e;
    }
    throw new AssertionError("parsed: " + source.substring(0, Math.min(80, source.length())));
  }

  @Test
  void deeplyNestedBracketsFailToParseWithTheNestingLimit() {
    for (String open : new String[] {"(", "[", "{'k': "}) {
      String close = open.equals("(") ? ")" : open.equals("[") ? "]" : "}";
      String source = "{{ " + open.repeat(10_000) + "1" + close.repeat(10_000) + " }}";
      TemplateError e = parseError(source);
      assertThat(e.kind()).isEqualTo("TemplateSyntaxError");
      assertThat(e.pythonMessage()).contains("nested").contains(String.valueOf(Limits.MAX_NESTING));
      assertThat(e.line()).isEqualTo(1);
    }
    assertThat(parseError("{{ " + "-".repeat(10_000) + "1 }}").pythonMessage()).contains("nested");
    assertThat(parseError("{{ " + "not ".repeat(10_000) + "1 }}").pythonMessage())
        .contains("nested");
    assertThat(parseError("{{ " + "f(".repeat(10_000) + ")".repeat(10_000) + " }}").pythonMessage())
        .contains("nested");
    assertThat(parseError("{{ 1 " + "if 1 else 1 ".repeat(10_000) + "}}").pythonMessage())
        .contains("nested");
  }

  @Test
  void deeplyNestedBlocksFailToParseWithTheNestingLimit() {
    String ifs = "{% if x %}".repeat(10_000) + "{% endif %}".repeat(10_000);
    assertThat(parseError(ifs).pythonMessage()).contains("nested");
    String fors = "\n{% for x in y %}".repeat(10_000);
    TemplateError e = parseError(fors);
    assertThat(e.pythonMessage()).contains("nested");
    assertThat(e.line()).isEqualTo(Limits.MAX_NESTING + 2);
  }

  @Test
  void nestingAsDeepAsPythonsRecursionLimitAllowsStillParses() {
    // Python's Jinja2 parses 69 nested parentheses and 98 nested ifs at most (RecursionError
    // beyond): the limit here must not be lower.
    assertThat(render("{{ " + "(".repeat(69) + "1" + ")".repeat(69) + " }}")).isEqualTo("1");
    assertThat(render("{% if 1 %}".repeat(98) + "x" + "{% endif %}".repeat(98))).isEqualTo("x");
  }

  @Test
  void longOperatorChainsFailAtRenderWithTheDepthLimit() {
    for (String source :
        new String[] {
          "{{ 1" + " + 1".repeat(100_000) + " }}",
          "{{ 1" + "|abs".repeat(100_000) + " }}",
          "{{ 0" + " or 0".repeat(100_000) + " }}",
          "{{ x" + ".a".repeat(100_000) + " }}",
          "{{ 1" + " if 1".repeat(100_000) + " }}"
        }) {
      JinjaTemplate t = JinjaTemplate.parse(source);
      assertThatThrownBy(() -> t.render(Map.of("x", Map.of())))
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("RecursionError");
                assertThat(e.pythonMessage()).contains(String.valueOf(Limits.MAX_DEPTH));
                assertThat(e.line()).isEqualTo(1);
              });
    }
    // Python's Jinja2 compiles chains of 492 operators at most: these are well within the limit.
    assertThat(render("{{ 0" + " + 1".repeat(400) + " }}")).isEqualTo("400");
  }

  @Test
  void runawayMacroRecursionFailsWithTheDepthLimit() {
    assertThatThrownBy(() -> render("{% macro m() %}{{ m() }}{% endmacro %}\n{{ m() }}"))
        .isInstanceOfSatisfying(
            TemplateError.class,
            e -> {
              assertThat(e.kind()).isEqualTo("RecursionError");
              assertThat(e.pythonMessage())
                  .isEqualTo(
                      "maximum recursion depth exceeded: more than "
                          + Limits.MAX_CALL_DEPTH
                          + " nested macro calls");
              assertThat(e.line()).isEqualTo(1);
            });
    // Python's Jinja2 recurses into a macro 197 times at most, whatever the macro's body.
    String countdown =
        "{% macro m(n) %}{% if n > 0 %}{% for i in [1] %}{{ m(n - 1)|trim }}"
            + "{% endfor %}{% else %}done{% endif %}{% endmacro %}{{ m(197) }}";
    assertThat(render(countdown)).isEqualTo("done");
  }

  @Test
  void printingDeeplyNestedDataFailsWithTheDepthLimit() {
    String build =
        "{% set ns = namespace(x=[]) %}{% for i in range(50000) %}"
            + "{% set ns.x = [ns.x] %}{% endfor %}";
    for (String print : new String[] {"{{ ns.x }}", "{{ ns.x|tojson }}", "{{ ns.x == ns.x[0] }}"}) {
      assertThatThrownBy(() -> render(build + print))
          .as(print)
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("RecursionError");
                assertThat(e.pythonMessage()).contains(String.valueOf(Limits.MAX_DEPTH));
              });
    }
  }

  /** Each builds (or would build) far more than {@link Limits#MAX_LENGTH} characters or items. */
  @Test
  void resultsBeyondTheLengthLimitFailInsteadOfExhaustingMemory() {
    String big = "{% set big = 'x' * 60000000 %}";
    for (String source :
        new String[] {
          "{{ 'x'|center(9999999999) }}",
          "{{ 'x'|center(100000000) }}",
          "{{ 'a\nb'|indent(9999999999) }}",
          "{{ 'a\nb'|indent(100000000) }}",
          "{{ [[1]]|tojson(indent=9999999999) }}",
          "{{ [[1]]|tojson(indent=100000000) }}",
          big + "{{ [[[[big]]]]|tojson(indent=big) }}",
          big + "{{ ([big] * 10)|tojson }}",
          big + "{{ [big] * 10 }}",
          big + "{{ ([big] * 10)|join }}",
          big + "{{ range(10)|join(big) }}",
          big + "{{ big ~ big }}",
          big + "{{ big + big }}",
          big + "{{ '{}{}'.format(big, big) }}",
          big + "{{ big|replace('x', 'yy') }}",
          big + "{{ 'ab'|replace('', big) }}",
          "{{ ('&' * 20000000)|e|e }}",
          big + "{{ ('a\n' * 30000000)|indent(big) }}",
          big + "{{ '-'.join([big, big]) }}",
          big + "{{ strftime_now('%A' * 30000000) }}",
          big
              + "{% set ns = namespace(l=[1]) %}{% for i in range(40) %}"
              + "{% set ns.l = ns.l + ns.l %}{% endfor %}",
          "{{ [1]|batch(9999999999, 0)|list }}",
          "{{ [1]|batch(100000000, 0)|list }}",
          big + "{% for i in range(10) %}{{ big }}{% endfor %}",
          big + "{% set s %}{% for i in range(10) %}{{ big }}{% endfor %}{% endset %}",
          big + "{% macro m() %}{{ big }}{{ big }}{% endmacro %}{{ m() }}"
        }) {
      assertThatThrownBy(() -> render(source))
          .as(source.substring(0, Math.min(120, source.length())))
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("MemoryError");
                assertThat(e.pythonMessage()).contains(String.valueOf(Limits.MAX_LENGTH));
              });
    }
  }

  /** Python's padding methods are not implemented: they fail as Unsupported, whatever width. */
  @Test
  void paddingStrMethodsFailAsUnsupportedWhateverTheirWidth() {
    for (String method : new String[] {"center", "ljust", "rjust", "zfill"}) {
      assertThatThrownBy(() -> render("{{ 'x'." + method + "(9999999999) }}"))
          .as(method)
          .isInstanceOfSatisfying(
              TemplateError.class,
              e -> {
                assertThat(e.kind()).isEqualTo("Unsupported");
                assertThat(e.pythonMessage()).contains("str method " + method);
              });
    }
  }

  @Test
  void resultsWithinTheLengthLimitStillRender() {
    assertThat(render("{{ 'x'|center(1000000)|length }}")).isEqualTo("1000000");
    assertThat(render("{{ 'a\nb'|indent(1000000)|length }}")).isEqualTo("1000003");
    assertThat(render("{{ [1]|tojson(indent=1000000)|length }}")).isEqualTo("1000005");
    assertThat(render("{{ [1]|batch(1000000, 0)|first|length }}")).isEqualTo("1000000");
    assertThat(render("{{ ('x' * 60000000 ~ 'y')|length }}")).isEqualTo("60000001");
  }
}
