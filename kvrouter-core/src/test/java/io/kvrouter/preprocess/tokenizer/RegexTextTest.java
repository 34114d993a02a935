package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RegexTextTest {

  @Test
  void theJdkSeesTheCategoriesOfTheTables() {
    String text =
        "ok \uD83E\uDEF6 ok n \uD807\uDF50\uD807\uDF51 m \u0897a \uD80D\uDC39 \uD803\uDD40.";
    RegexText view = RegexText.of(text);
    int i = 0;
    while (i < view.text.length()) {
      int cp = view.text.codePointAt(i);
      int next = i + Character.charCount(cp);
      int original = text.codePointAt(view.original(i));
      assertThat(Character.getType(cp)).as("at %d", i).isEqualTo(UnicodeTables.type(original));
      assertThat(view.original(next)).isEqualTo(view.original(i) + Character.charCount(original));
      i = next;
    }
    assertThat(view.original(view.text.length())).isEqualTo(text.length());
  }

  @Test
  void textWithoutDriftedCodePointsIsMatchedAsItIs() {
    String text = "plain ASCII, café, 你好, 🙂";
    RegexText view = RegexText.of(text);
    assertThat(view.text).isSameAs(text);
    assertThat(view.original(3)).isEqualTo(3);
  }
}
