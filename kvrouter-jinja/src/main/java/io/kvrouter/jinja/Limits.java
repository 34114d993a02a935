package io.kvrouter.jinja;

/**
 * How deep and how large one parse or render may go, so that a hostile or broken template or
 * request fails with a {@link TemplateError} naming the limit instead of exhausting the thread's
 * stack or the JVM's heap. Python's Jinja2 fails the same inputs (RecursionError, MemoryError),
 * mostly at lower sizes; every limit is above what Python itself accepts where that is known.
 */
final class Limits {
  private Limits() {}

  /**
   * Brackets, call arguments, unary operators, inline ifs and blocks nested in one another at parse
   * time (Python's Jinja2 parses at most 69 nested parentheses and 98 nested ifs).
   */
  static final int MAX_NESTING = 100;

  /** Macro calls in progress at render time (Python's Jinja2 recurses into a macro 197 times). */
  static final int MAX_CALL_DEPTH = 200;

  /**
   * Links of operator, filter, test, attribute and call chains being evaluated at render time, over
   * all macro calls in progress (Python's Jinja2 compiles chains of 492 operators at most); also
   * how deep printed, compared or serialized data may nest.
   */
  static final int MAX_DEPTH = 500;

  /**
   * The most characters of a string, or items of a list, one operation may build (64 Mi): a
   * repetition, a padding or indentation width, a concatenation, a join, a replacement, an escape,
   * a printed or serialized value, the output of a render.
   */
  static final int MAX_LENGTH = 64 * 1024 * 1024;

  /** {@code n} as an int, when a result of {@code n} characters or items is allowed. */
  static int checkLength(long n, String what) {
    if (n > MAX_LENGTH) {
      throw tooLong(what);
    }
    return (int) n;
  }

  /**
   * Fails when {@code sb} grew past MAX_LENGTH. Called after each append of a loop that builds a
   * result, so the builder never exceeds the limit by more than one appended piece (itself within
   * the limit).
   */
  static void checkBuilt(StringBuilder sb, String what) {
    if (sb.length() > MAX_LENGTH) {
      throw tooLong(what);
    }
  }

  private static TemplateError tooLong(String what) {
    return TemplateError.of(
        "MemoryError", what + " would be longer than " + MAX_LENGTH + " characters or items");
  }

  static TemplateError tooDeeplyNested(int line) {
    return TemplateError.syntax(
        "too deeply nested: more than " + MAX_NESTING + " levels of brackets, operators or blocks",
        line);
  }

  static TemplateError recursion(int limit, String what) {
    return TemplateError.of(
        "RecursionError", "maximum recursion depth exceeded: more than " + limit + " " + what);
  }

  /** Fails when data being printed, compared or serialized nests deeper than MAX_DEPTH. */
  static void checkDataDepth(int depth) {
    if (depth > MAX_DEPTH) {
      throw recursion(MAX_DEPTH, "levels of nested lists and dicts");
    }
  }
}
