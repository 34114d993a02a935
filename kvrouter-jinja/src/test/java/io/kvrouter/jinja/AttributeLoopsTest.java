package io.kvrouter.jinja;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which templates loop over a message's content (and so get OpenAI's content parts). */
class AttributeLoopsTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{% for m in messages %}{% for p in m['content'] %}{{ p.text }}{% endfor %}{% endfor %}",
        "{% for m in messages %}{% for p in m.content %}{{ p }}{% endfor %}{% endfor %}",
        "{% set c = messages[0].content %}{% if c is string %}{{ c }}{% else %}"
            + "{% for p in c %}{{ p }}{% endfor %}{% endif %}",
        "{% macro show(m) %}{% for p in m.content %}{{ p }}{% endfor %}{% endmacro %}",
        "{% call(x) show() %}{% for p in x['content'] %}{% endfor %}{% endcall %}"
      })
  void loopsOverContent(String source) {
    assertThat(JinjaTemplate.parse(source).loopsOver("content")).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{% for m in messages %}{{ m['content'] }}{% endfor %}",
        "{% for m in messages %}{% for c in m['contents'] %}{% endfor %}{% endfor %}",
        "{% set content = '<b>' + messages[0].content %}{% for x in content %}{% endfor %}",
        "{% for p in content %}{{ p }}{% endfor %}"
      })
  void doesNotLoopOverContent(String source) {
    assertThat(JinjaTemplate.parse(source).loopsOver("content")).isFalse();
  }
}
