package io.kvrouter.jinja;

import io.kvrouter.jinja.Token.Type;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits a template into tokens with Jinja2's default delimiters ({@code {{ }}}, {@code {% %}},
 * {@code {# #}}) and Hugging Face's whitespace settings: {@code trim_blocks} (the first newline
 * after a block or comment tag is removed), {@code lstrip_blocks} (spaces and tabs before a block
 * or comment tag at the start of a line are removed), the {@code -} and {@code +} modifiers, and
 * {@code keep_trailing_newline=False} (one trailing newline of the source is dropped). Inside a
 * tag, a closing delimiter only ends the tag outside brackets, as in Jinja2.
 */
final class Lexer {
  private final String src;
  private final List<Token> out = new ArrayList<>();
  private int pos;
  private int line = 1;

  /** Set after a tag closed with {@code -}: the next text loses its leading whitespace. */
  private boolean stripNext;

  private Lexer(String src) {
    this.src = src;
  }

  static List<Token> tokenize(String source) {
    String s = source;
    if (s.endsWith("\r\n")) {
      s = s.substring(0, s.length() - 2);
    } else if (s.endsWith("\n") || s.endsWith("\r")) {
      s = s.substring(0, s.length() - 1);
    }
    Lexer lx = new Lexer(s);
    lx.run();
    return lx.out;
  }

  private void run() {
    while (pos < src.length()) {
      int open = findOpen(pos);
      int textEnd = open < 0 ? src.length() : open;
      String text = src.substring(pos, textEnd);
      boolean lineStart = pos == 0 || src.charAt(pos - 1) == '\n';
      if (stripNext) {
        text = stripLeading(text);
        stripNext = false;
      }
      if (open < 0) {
        emitText(text);
        pos = src.length();
        break;
      }
      char kind = src.charAt(open + 1);
      char mod = open + 2 < src.length() ? src.charAt(open + 2) : 0;
      if (mod == '-') {
        text = stripTrailing(text);
      } else if (mod != '+' && (kind == '%' || kind == '#')) {
        int nl = text.lastIndexOf('\n') + 1;
        if (nl > 0 || lineStart) {
          boolean blank = true;
          for (int i = nl; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c != ' ' && c != '\t') {
              blank = false;
              break;
            }
          }
          if (blank) {
            text = text.substring(0, nl);
          }
        }
      }
      emitText(text);
      int tagLine = line + countNewlines(pos, open);
      line = tagLine;
      pos = open + 2 + (mod == '-' || mod == '+' ? 1 : 0);
      if (kind == '#') {
        comment(tagLine);
      } else if (kind == '{') {
        out.add(new Token(Type.VAR_BEGIN, "{{", null, tagLine));
        tagBody('}', false);
      } else {
        out.add(new Token(Type.BLOCK_BEGIN, "{%", null, tagLine));
        int first = out.size();
        tagBody('%', true);
        if (out.size() == first + 2 && out.get(first).isName("raw")) {
          out.remove(out.size() - 1);
          out.remove(out.size() - 1);
          out.remove(out.size() - 1);
          raw(tagLine);
        }
      }
    }
    out.add(new Token(Type.EOF, "", null, line));
  }

  private void emitText(String text) {
    if (!text.isEmpty()) {
      if (text.indexOf('\r') >= 0) {
        text = text.replace("\r\n", "\n").replace('\r', '\n');
      }
      out.add(new Token(Type.TEXT, text, null, line));
    }
  }

  private int findOpen(int from) {
    int i = from;
    while (true) {
      i = src.indexOf('{', i);
      if (i < 0 || i + 1 >= src.length()) {
        return -1;
      }
      char c = src.charAt(i + 1);
      if (c == '{' || c == '%' || c == '#') {
        return i;
      }
      i++;
    }
  }

  private int countNewlines(int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      if (src.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B;
  }

  private static String stripLeading(String s) {
    int i = 0;
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
      i++;
    }
    return s.substring(i);
  }

  private static String stripTrailing(String s) {
    int i = s.length();
    while (i > 0 && Character.isWhitespace(s.charAt(i - 1))) {
      i--;
    }
    return s.substring(0, i);
  }

  /** After a block or comment tag closes: {@code -} strips, else trim_blocks drops one newline. */
  private void afterClose(boolean minus, boolean plus, boolean trim) {
    if (minus) {
      stripNext = true;
    } else if (trim && !plus) {
      if (src.startsWith("\r\n", pos)) {
        pos += 2;
        line++;
      } else if (pos < src.length() && (src.charAt(pos) == '\n' || src.charAt(pos) == '\r')) {
        pos++;
        line++;
      }
    }
  }

  private void comment(int tagLine) {
    int end = src.indexOf("#}", pos);
    if (end < 0) {
      throw TemplateError.syntax("Missing end of comment tag", tagLine);
    }
    boolean minus = end > pos && src.charAt(end - 1) == '-';
    boolean plus = end > pos && src.charAt(end - 1) == '+';
    line += countNewlines(pos, end);
    pos = end + 2;
    afterClose(minus, plus, true);
  }

  private void raw(int tagLine) {
    int i = pos;
    while (true) {
      int open = src.indexOf("{%", i);
      if (open < 0) {
        throw TemplateError.syntax("Missing end of raw directive", tagLine);
      }
      int j = open + 2;
      boolean minusOpen = j < src.length() && src.charAt(j) == '-';
      if (minusOpen || (j < src.length() && src.charAt(j) == '+')) {
        j++;
      }
      while (j < src.length() && isSpace(src.charAt(j))) {
        j++;
      }
      if (src.startsWith("endraw", j)) {
        int k = j + 6;
        while (k < src.length() && isSpace(src.charAt(k))) {
          k++;
        }
        boolean minusClose = src.startsWith("-%}", k);
        if (minusClose || src.startsWith("%}", k) || src.startsWith("+%}", k)) {
          String text = src.substring(pos, open);
          if (stripNext) {
            text = stripLeading(text);
            stripNext = false;
          }
          if (minusOpen) {
            text = stripTrailing(text);
          }
          emitText(text);
          line += countNewlines(pos, open);
          pos = k + (src.startsWith("%}", k) ? 2 : 3);
          afterClose(minusClose, src.startsWith("+%}", k), true);
          return;
        }
      }
      i = open + 2;
    }
  }

  /**
   * Expression tokens up to the closing delimiter ({@code }}} or {@code %}}) at bracket depth 0.
   */
  private void tagBody(char closer, boolean block) {
    int depth = 0;
    while (true) {
      while (pos < src.length() && isSpace(src.charAt(pos))) {
        if (src.charAt(pos) == '\n') {
          line++;
        }
        pos++;
      }
      if (pos >= src.length()) {
        throw TemplateError.syntax("unexpected end of template, expected '" + closer + "}'", line);
      }
      char c = src.charAt(pos);
      if (depth == 0) {
        boolean minus = c == '-' && src.startsWith(closer + "}", pos + 1);
        boolean plus = c == '+' && src.startsWith(closer + "}", pos + 1);
        if (minus
            || plus
            || (c == closer && pos + 1 < src.length() && src.charAt(pos + 1) == '}')) {
          pos += minus || plus ? 3 : 2;
          out.add(new Token(block ? Type.BLOCK_END : Type.VAR_END, closer + "}", null, line));
          if (block) {
            afterClose(minus, plus, true);
          } else if (minus) {
            stripNext = true;
          }
          return;
        }
      }
      if (Character.isLetter(c) || c == '_') {
        int s = pos;
        while (pos < src.length()
            && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
          pos++;
        }
        out.add(new Token(Type.NAME, src.substring(s, pos), null, line));
      } else if (Character.isDigit(c)) {
        number();
      } else if (c == '\'' || c == '"') {
        string(c);
      } else {
        String op = operator();
        if (op == null) {
          throw TemplateError.syntax("unexpected char '" + c + "'", line);
        }
        if (op.equals("(") || op.equals("[") || op.equals("{")) {
          depth++;
        } else if (op.equals(")") || op.equals("]") || op.equals("}")) {
          depth--;
        }
        out.add(new Token(Type.OP, op, null, line));
      }
    }
  }

  private static final String[] OPS = {
    "//", "**", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "~", "<", ">", "(", ")", "[", "]",
    "{", "}", ",", ".", ":", "|", "="
  };

  private String operator() {
    for (String op : OPS) {
      if (src.startsWith(op, pos)) {
        pos += op.length();
        return op;
      }
    }
    return null;
  }

  private void number() {
    int s = pos;
    boolean isFloat = false;
    while (pos < src.length() && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
      pos++;
    }
    if (pos + 1 < src.length()
        && src.charAt(pos) == '.'
        && Character.isDigit(src.charAt(pos + 1))) {
      isFloat = true;
      pos++;
      while (pos < src.length() && (Character.isDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
        pos++;
      }
    }
    if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
      int save = pos;
      pos++;
      if (pos < src.length() && (src.charAt(pos) == '+' || src.charAt(pos) == '-')) {
        pos++;
      }
      if (pos < src.length() && Character.isDigit(src.charAt(pos))) {
        isFloat = true;
        while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
          pos++;
        }
      } else {
        pos = save;
      }
    }
    String text = src.substring(s, pos).replace("_", "");
    if (isFloat) {
      out.add(new Token(Type.FLOAT, text, Double.parseDouble(text), line));
    } else {
      // beyond 64 bits the literal stays a BigInteger (Node.BigInt, see PyInt)
      BigInteger n = new BigInteger(text);
      out.add(new Token(Type.INT, text, n.bitLength() < 64 ? (Object) n.longValue() : n, line));
    }
  }

  private void string(char quote) {
    int startLine = line;
    StringBuilder sb = new StringBuilder();
    pos++;
    while (true) {
      if (pos >= src.length()) {
        throw TemplateError.syntax("unexpected end of string", startLine);
      }
      char c = src.charAt(pos++);
      if (c == quote) {
        break;
      }
      if (c == '\n') {
        line++;
      }
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      if (pos >= src.length()) {
        throw TemplateError.syntax("unexpected end of string", startLine);
      }
      char e = src.charAt(pos++);
      switch (e) {
        case 'n' -> sb.append('\n');
        case 't' -> sb.append('\t');
        case 'r' -> sb.append('\r');
        case '0' -> sb.append('\0');
        case 'b' -> sb.append('\b');
        case 'f' -> sb.append('\f');
        case 'v' -> sb.append('\u000B');
        case 'a' -> sb.append('\u0007');
        case '\\', '\'', '"' -> sb.append(e);
        case '\n' -> line++;
        case 'x' -> sb.append((char) hex(2));
        case 'u' -> sb.append((char) hex(4));
        case 'U' -> sb.appendCodePoint(hex(8));
        default -> sb.append('\\').append(e);
      }
    }
    out.add(new Token(Type.STRING, sb.toString(), sb.toString(), startLine));
  }

  private int hex(int n) {
    if (pos + n > src.length()) {
      throw TemplateError.syntax("truncated escape in string", line);
    }
    int v = Integer.parseInt(src.substring(pos, pos + n), 16);
    pos += n;
    return v;
  }
}
