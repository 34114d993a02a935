package io.kvrouter.preprocess.tokenizer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SplitPatternTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        // Llama 3, Qwen
        "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}|"
            + " ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        // Mistral Nemo
        "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|"
            + "\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
        // DeepSeek V3
        "[一-龥぀-ゟ゠-ヿ]+",
        "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+",
        "\\x{41}-[\\x41-\\u005A&&[^B]]{2,}?(?:a|b)*+(?<=a)(?<!b)(?=c)",
      })
  void acceptsTheByteLevelModelsPatterns(String regex) {
    assertThat(SplitPattern.compile(regex)).isNotNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a.b", // any character: Oniguruma stops only at \n, the JDK at five line terminators
        "^a", // line start in Oniguruma, text start in the JDK
        "a$",
        "\\w+",
        "\\d",
        "\\b",
        "\\p{Latin}",
        "\\p{Alpha}",
        "(?i:\\p{Lu})", // case-insensitive classes differ between the engines
        "(?i)\\p{Ll}",
        "(?<name>a)",
        "(?x)a",
        "[a-",
        "(a",
        "a)",
        "\\",
        "*a", // nothing to repeat
        "a{2,1}",
      })
  void refusesWhatTheEnginesMayReadDifferently(String regex) {
    assertThat(SplitPattern.compile(regex)).isNull();
  }

  @Test
  void refusesPatternsNamingADriftedCodePoint() {
    // U+1FAF6 is drifted on a JDK older than Unicode 14 (JDK 17), not on JDK 25
    boolean drifted = RegexText.anyDrifted(0x1FAF6, 0x1FAF6);
    assertThat(SplitPattern.compile("[\\x{1FAF6}]") == null).isEqualTo(drifted);
    assertThat(SplitPattern.compile("[\\x{1FA00}-\\x{1FAFF}]+") == null).isEqualTo(drifted);
  }
}
