package io.kvrouter.preprocess.tokenizer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A {@code Split} pre-tokenizer regex of a {@code tokenizer.json}, accepted only when the JDK's
 * regex engine, matching a {@link RegexText}, finds what the Rust library's engine (Oniguruma)
 * finds. The accepted subset is what the byte-level BPE models write: literals, {@code \r \n \t
 * \f}, hex escapes, escaped punctuation, {@code \s \S}, general-category classes {@code \p{..}
 * \P{..}}, bracket classes (ranges, negation, nesting, {@code &&}), groups ({@code (?:}, {@code
 * (?i:}, lookaround), alternation and quantifiers. Anything else, such as {@code .}, {@code ^} and
 * {@code $} (line anchors in Oniguruma, text anchors in the JDK), {@code \w}, {@code \d}, {@code
 * \b}, script or binary properties, or a category class inside {@code (?i)}, makes {@link #compile}
 * return null and the model stays with the Rust tokenizer.
 *
 * <p>It also returns null when the pattern names literally a drifted code point or a stand-in of
 * {@link RegexText} (or a case variant of one), where replacing the one by the other could change a
 * match.
 */
final class SplitPattern {
  private static final Set<String> CATEGORIES =
      Set.of(
          "L", "Lu", "Ll", "Lt", "Lm", "Lo", "M", "Mn", "Mc", "Me", "N", "Nd", "Nl", "No", "P",
          "Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "S", "Sm", "Sc", "Sk", "So", "Z", "Zs", "Zl",
          "Zp");

  private final String regex;
  private int pos;

  /** Code point ranges the pattern names literally, as {first, last}. */
  private final List<int[]> literals = new ArrayList<>();

  /** Whether each open group matches case-insensitively. */
  private final Deque<Boolean> caseless = new ArrayDeque<>();

  private SplitPattern(String regex) {
    this.regex = regex;
  }

  /** The pattern compiled for {@link RegexText}s, or null when it is outside the subset. */
  static Pattern compile(String regex) {
    SplitPattern scan = new SplitPattern(regex);
    if (!scan.sequence() || !scan.standInsAreSafe()) {
      return null;
    }
    try {
      return Pattern.compile(regex, Pattern.UNICODE_CHARACTER_CLASS);
    } catch (PatternSyntaxException e) {
      return null; // the JDK reads it otherwise (a quantifier with nothing to repeat, ...)
    }
  }

  private boolean standInsAreSafe() {
    for (int[] r : literals) {
      if (RegexText.anyDrifted(r[0], r[1])) {
        return false;
      }
    }
    for (int standIn : RegexText.standInsInUse()) {
      if (standIn < 0) {
        return false;
      }
      for (int variant :
          new int[] {
            standIn,
            Character.toLowerCase(standIn),
            Character.toUpperCase(standIn),
            Character.toTitleCase(standIn)
          }) {
        for (int[] r : literals) {
          if (variant >= r[0] && variant <= r[1]) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private boolean more() {
    return pos < regex.length();
  }

  private int peek() {
    return regex.codePointAt(pos);
  }

  private int next() {
    int c = regex.codePointAt(pos);
    pos += Character.charCount(c);
    return c;
  }

  private boolean take(String s) {
    if (regex.startsWith(s, pos)) {
      pos += s.length();
      return true;
    }
    return false;
  }

  private boolean caselessNow() {
    return !caseless.isEmpty() && caseless.peek();
  }

  /** The whole pattern: a sequence of atoms, quantifiers, groups and alternatives. */
  private boolean sequence() {
    caseless.push(false);
    while (more()) {
      int c = next();
      boolean ok =
          switch (c) {
            case '\\' -> escape() != BAD;
            case '[' -> bracket();
            case '(' -> open();
            case ')' -> close();
            case '|' -> true;
            case '?', '*', '+' -> {
              if (more() && (peek() == '?' || peek() == '+')) {
                next();
              }
              yield true;
            }
            case '{' -> counted();
            case '.', '^', '$', ']', '}' -> false;
            default -> literal(c, c);
          };
      if (!ok) {
        return false;
      }
    }
    return caseless.size() == 1;
  }

  private boolean open() {
    boolean inherited = caselessNow();
    if (take("?i)")) {
      // no group of its own: case-insensitive for the rest of the enclosing one
      caseless.pop();
      caseless.push(true);
      return true;
    }
    if (take("?i:")) {
      caseless.push(true);
      return true;
    }
    if (take("?:") || take("?!") || take("?=") || take("?<=") || take("?<!")) {
      caseless.push(inherited);
      return true;
    }
    if (more() && peek() == '?') {
      return false;
    }
    caseless.push(inherited);
    return true;
  }

  private boolean close() {
    if (caseless.size() < 2) {
      return false;
    }
    caseless.pop();
    return true;
  }

  /** {@code {n}}, {@code {n,}} or {@code {n,m}}, possibly lazy. */
  private boolean counted() {
    int start = pos;
    while (more() && (Character.isDigit(peek()) || peek() == ',')) {
      next();
    }
    if (pos == start || !more() || next() != '}' || !Character.isDigit(regex.charAt(start))) {
      return false;
    }
    if (more() && peek() == '?') {
      next();
    }
    return true;
  }

  private static final int BAD = -2;
  private static final int CLASS = -1;

  /** After a backslash: the literal code point, {@link #CLASS} or {@link #BAD}. */
  private int escape() {
    if (!more()) {
      return BAD;
    }
    int e = next();
    int literal =
        switch (e) {
          case 'r' -> '\r';
          case 'n' -> '\n';
          case 't' -> '\t';
          case 'f' -> '\f';
          case 'x' -> hex();
          case 'u' -> hexDigits(4);
          case 's', 'S' -> CLASS;
          case 'p', 'P' -> category() ? CLASS : BAD;
          default -> e < 0x80 && !Character.isLetterOrDigit(e) ? e : BAD;
        };
    if (literal >= 0) {
      literal(literal, literal);
    }
    return literal;
  }

  private boolean category() {
    if (caselessNow() || !take("{")) {
      return false;
    }
    int end = regex.indexOf('}', pos);
    if (end < 0 || !CATEGORIES.contains(regex.substring(pos, end))) {
      return false;
    }
    pos = end + 1;
    return true;
  }

  private int hex() {
    if (take("{")) {
      int end = regex.indexOf('}', pos);
      if (end < 0 || end == pos || end - pos > 6) {
        return BAD;
      }
      int value = parseHex(regex.substring(pos, end));
      pos = end + 1;
      return value <= Character.MAX_CODE_POINT ? value : BAD;
    }
    return hexDigits(2);
  }

  private int hexDigits(int count) {
    if (pos + count > regex.length()) {
      return BAD;
    }
    int value = parseHex(regex.substring(pos, pos + count));
    pos += count;
    return value;
  }

  private static int parseHex(String digits) {
    for (int i = 0; i < digits.length(); i++) {
      if (Character.digit(digits.charAt(i), 16) < 0) {
        return BAD;
      }
    }
    return Integer.parseInt(digits, 16);
  }

  /** A bracket class after its {@code [}: members, ranges, nested classes, {@code &&}. */
  private boolean bracket() {
    take("^");
    boolean empty = true;
    int previous = BAD; // the last single code point, which a '-' may extend into a range
    while (more()) {
      int c = next();
      if (c == ']') {
        return !empty;
      }
      empty = false;
      if (c == '[') {
        if (!bracket()) {
          return false;
        }
        previous = BAD;
      } else if (c == '&' && take("&")) {
        previous = BAD;
      } else if (c == '-' && previous >= 0 && more() && peek() != ']') {
        int last = member();
        if (last < previous) {
          return false;
        }
        literal(previous, last);
        previous = BAD;
      } else if (c == '\\') {
        previous = escape();
        if (previous == BAD) {
          return false;
        }
      } else {
        literal(c, c);
        previous = c;
      }
    }
    return false;
  }

  /** The upper end of a range: a plain or escaped single code point, else {@link #BAD}. */
  private int member() {
    int c = next();
    if (c == '\\') {
      return escape();
    }
    return c == '[' ? BAD : c;
  }

  private boolean literal(int first, int last) {
    literals.add(new int[] {first, last});
    return true;
  }
}
