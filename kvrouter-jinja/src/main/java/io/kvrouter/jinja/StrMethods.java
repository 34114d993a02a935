package io.kvrouter.jinja;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Python's {@code str} methods with Python's rules (code points, Unicode whitespace). */
final class StrMethods {
  private StrMethods() {}

  static boolean isSpace(int cp) {
    return (cp >= 0x09 && cp <= 0x0D)
        || (cp >= 0x1C && cp <= 0x20)
        || cp == 0x85
        || cp == 0xA0
        || cp == 0x1680
        || (cp >= 0x2000 && cp <= 0x200A)
        || cp == 0x2028
        || cp == 0x2029
        || cp == 0x202F
        || cp == 0x205F
        || cp == 0x3000;
  }

  private static boolean strip(int cp, String chars) {
    return chars == null ? isSpace(cp) : chars.indexOf(cp) >= 0;
  }

  static String lstrip(String s, String chars) {
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      if (!strip(cp, chars)) {
        break;
      }
      i += Character.charCount(cp);
    }
    return s.substring(i);
  }

  static String rstrip(String s, String chars) {
    int i = s.length();
    while (i > 0) {
      int cp = s.codePointBefore(i);
      if (!strip(cp, chars)) {
        break;
      }
      i -= Character.charCount(cp);
    }
    return s.substring(0, i);
  }

  static String strip(String s, String chars) {
    return lstrip(rstrip(s, chars), chars);
  }

  private static String optChars(List<Object> a) {
    if (a.isEmpty() || a.get(0) == null) {
      return null;
    }
    if (Markup.text(a.get(0)) != null) {
      return Markup.text(a.get(0));
    }
    throw TemplateError.typeError("strip arg must be None or str");
  }

  private static String strArg(List<Object> a, int i, String method) {
    Object v = Methods.arg(a, i, "arg");
    if (Markup.text(v) != null) {
      return Markup.text(v);
    }
    if (v instanceof Undefined u) {
      throw u.error();
    }
    throw TemplateError.typeError(method + "() argument must be str, not " + Py.typeName(v));
  }

  static List<Object> split(String s, String sep, long maxsplit) {
    List<Object> r = new ArrayList<>();
    if (sep == null) {
      int i = 0;
      int n = s.length();
      while (true) {
        while (i < n && isSpace(s.codePointAt(i))) {
          i += Character.charCount(s.codePointAt(i));
        }
        if (i >= n) {
          break;
        }
        if (maxsplit >= 0 && r.size() >= maxsplit) {
          r.add(rstrip(s.substring(i), null));
          break;
        }
        int j = i;
        while (j < n && !isSpace(s.codePointAt(j))) {
          j += Character.charCount(s.codePointAt(j));
        }
        r.add(s.substring(i, j));
        i = j;
      }
      return r;
    }
    if (sep.isEmpty()) {
      throw TemplateError.of("ValueError", "empty separator");
    }
    int i = 0;
    while (true) {
      if (maxsplit >= 0 && r.size() >= maxsplit) {
        break;
      }
      int j = s.indexOf(sep, i);
      if (j < 0) {
        break;
      }
      r.add(s.substring(i, j));
      i = j + sep.length();
    }
    r.add(s.substring(i));
    return r;
  }

  static String title(String s) {
    StringBuilder sb = new StringBuilder();
    boolean prevCased = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (prevCased) {
        sb.append(new String(Character.toChars(cp)).toLowerCase(java.util.Locale.ROOT));
      } else {
        titleCase(sb, cp);
      }
      prevCased =
          Character.isUpperCase(cp) || Character.isLowerCase(cp) || Character.isTitleCase(cp);
    }
    return sb.toString();
  }

  /** Python's full title-case mapping of one code point ('ß' becomes "Ss"). */
  private static void titleCase(StringBuilder sb, int cp) {
    int t = Character.toTitleCase(cp);
    String upper = new String(Character.toChars(cp)).toUpperCase(java.util.Locale.ROOT);
    if (t != cp || upper.codePointCount(0, upper.length()) == 1) {
      sb.appendCodePoint(t);
      return;
    }
    int first = upper.codePointAt(0);
    sb.appendCodePoint(first)
        .append(upper.substring(Character.charCount(first)).toLowerCase(java.util.Locale.ROOT));
  }

  /** Python's {@code str.isupper()}: a cased character, and none lower or title case. */
  static boolean isUpper(String s) {
    return s.codePoints().anyMatch(Character::isUpperCase)
        && s.codePoints().noneMatch(cp -> Character.isLowerCase(cp) || Character.isTitleCase(cp));
  }

  /** Python's {@code str.islower()}: a cased character, and none upper or title case. */
  static boolean isLower(String s) {
    return s.codePoints().anyMatch(Character::isLowerCase)
        && s.codePoints().noneMatch(cp -> Character.isUpperCase(cp) || Character.isTitleCase(cp));
  }

  static String capitalize(String s) {
    if (s.isEmpty()) {
      return s;
    }
    int cp = s.codePointAt(0);
    StringBuilder sb = new StringBuilder();
    titleCase(sb, cp);
    return sb.append(s.substring(Character.charCount(cp)).toLowerCase(java.util.Locale.ROOT))
        .toString();
  }

  private static final java.util.regex.Pattern LINE_BOUNDARY =
      java.util.regex.Pattern.compile(
          "\r\n|[\n\r\u000B\u000C\u001C\u001D\u001E\u0085\u2028\u2029]");

  /** Python's {@code str.splitlines()}: split at every line boundary, no final empty line. */
  static List<String> splitlines(String s) {
    List<String> r = new ArrayList<>(List.of(LINE_BOUNDARY.split(s, -1)));
    if (r.get(r.size() - 1).isEmpty()) {
      r.remove(r.size() - 1);
    }
    return r;
  }

  /** Python's {@code str.replace}: at most {@code count} times unless negative. */
  static String replace(String s, String old, String neu, long count) {
    long max = count < 0 ? Long.MAX_VALUE : count;
    StringBuilder sb = new StringBuilder();
    long done = 0;
    if (old.isEmpty()) {
      // an empty match is before every code point and at the end
      for (int i = 0; ; ) {
        if (done++ < max) {
          sb.append(neu);
          Limits.checkBuilt(sb, REPLACED);
        }
        if (i >= s.length()) {
          return sb.toString();
        }
        int cp = s.codePointAt(i);
        sb.appendCodePoint(cp);
        i += Character.charCount(cp);
      }
    }
    int i = 0;
    for (int j; done < max && (j = s.indexOf(old, i)) >= 0; done++) {
      sb.append(s, i, j).append(neu);
      Limits.checkBuilt(sb, REPLACED);
      i = j + old.length();
    }
    return sb.append(s, i, s.length()).toString();
  }

  private static final String REPLACED = "a replacement";

  private static int cpIndex(String s, int charIndex) {
    return charIndex < 0 ? -1 : s.codePointCount(0, charIndex);
  }

  /** Most positional arguments each method takes here (Python's optional start/end are not). */
  private static final Map<String, Integer> ARITY =
      Map.ofEntries(
          Map.entry("strip", 1),
          Map.entry("lstrip", 1),
          Map.entry("rstrip", 1),
          Map.entry("split", 2),
          Map.entry("startswith", 1),
          Map.entry("endswith", 1),
          Map.entry("upper", 0),
          Map.entry("lower", 0),
          Map.entry("title", 0),
          Map.entry("capitalize", 0),
          Map.entry("swapcase", 0),
          Map.entry("replace", 3),
          Map.entry("join", 1),
          Map.entry("count", 1),
          Map.entry("find", 1),
          Map.entry("rfind", 1),
          Map.entry("index", 1),
          Map.entry("rindex", 1),
          Map.entry("isdigit", 0),
          Map.entry("isalpha", 0),
          Map.entry("isalnum", 0),
          Map.entry("isspace", 0),
          Map.entry("isupper", 0),
          Map.entry("islower", 0),
          Map.entry("removeprefix", 1),
          Map.entry("removesuffix", 1),
          Map.entry("splitlines", 0),
          Map.entry("partition", 1),
          Map.entry("rpartition", 1));

  static Object call(String s, String name, List<Object> a, Map<String, Object> kw) {
    Integer arity = ARITY.get(name);
    if (arity != null) {
      if (a.size() > arity) {
        throw TemplateError.unsupported(
            "str." + name + " with " + a.size() + " arguments (at most " + arity + " here)");
      }
      for (String k : kw.keySet()) {
        if (!name.equals("split") || !(k.equals("sep") || k.equals("maxsplit"))) {
          throw TemplateError.unsupported("str." + name + " with keyword argument " + k);
        }
      }
    }
    switch (name) {
      case "strip":
        return strip(s, optChars(a));
      case "lstrip":
        return lstrip(s, optChars(a));
      case "rstrip":
        return rstrip(s, optChars(a));
      case "split":
        {
          Object sep = a.isEmpty() ? kw.get("sep") : a.get(0);
          Object max = a.size() > 1 ? a.get(1) : kw.getOrDefault("maxsplit", -1L);
          if (sep != null && Markup.text(sep) == null) {
            throw TemplateError.typeError("must be str or None, not " + Py.typeName(sep));
          }
          return split(s, Markup.text(sep), Py.index(max));
        }
      case "startswith":
      case "endswith":
        {
          Object p = Methods.arg(a, 0, "prefix");
          List<?> options = p instanceof PyTuple t ? t : List.of(p);
          for (Object o : options) {
            String str = Markup.text(o);
            if (str == null) {
              throw TemplateError.typeError(
                  name + " first arg must be str or a tuple of str, not " + Py.typeName(o));
            }
            if (name.equals("startswith") ? s.startsWith(str) : s.endsWith(str)) {
              return true;
            }
          }
          return false;
        }
      case "upper":
        return s.toUpperCase(java.util.Locale.ROOT);
      case "lower":
        return s.toLowerCase(java.util.Locale.ROOT);
      case "title":
        return title(s);
      case "capitalize":
        return capitalize(s);
      case "swapcase":
        {
          StringBuilder sb = new StringBuilder();
          s.codePoints()
              .forEach(
                  cp ->
                      sb.appendCodePoint(
                          Character.isUpperCase(cp)
                              ? Character.toLowerCase(cp)
                              : Character.toUpperCase(cp)));
          return sb.toString();
        }
      case "replace":
        return replace(
            s,
            strArg(a, 0, "replace"),
            strArg(a, 1, "replace"),
            a.size() > 2 ? Py.toLong(a.get(2)) : -1);
      case "join":
        {
          StringBuilder sb = new StringBuilder();
          int i = 0;
          for (Object o : Py.iterable(Methods.arg(a, 0, "iterable"))) {
            String str = Markup.text(o);
            if (str == null) {
              throw TemplateError.typeError(
                  "sequence item " + i + ": expected str instance, " + Py.typeName(o) + " found");
            }
            if (i++ > 0) {
              sb.append(s);
            }
            sb.append(str);
            Limits.checkBuilt(sb, "str.join");
          }
          return sb.toString();
        }
      case "format":
        return format(s, a, kw);
      case "count":
        {
          String sub = strArg(a, 0, "count");
          if (sub.isEmpty()) {
            return (long) s.codePointCount(0, s.length()) + 1;
          }
          long n = 0;
          for (int i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + sub.length())) {
            n++;
          }
          return n;
        }
      case "find":
        return (long) cpIndex(s, s.indexOf(strArg(a, 0, "find")));
      case "rfind":
        return (long) cpIndex(s, s.lastIndexOf(strArg(a, 0, "rfind")));
      case "index":
      case "rindex":
        {
          String sub = strArg(a, 0, name);
          int i = name.equals("index") ? s.indexOf(sub) : s.lastIndexOf(sub);
          if (i < 0) {
            throw TemplateError.of("ValueError", "substring not found");
          }
          return (long) cpIndex(s, i);
        }
      case "isdigit":
        return !s.isEmpty() && s.codePoints().allMatch(Character::isDigit);
      case "isalpha":
        return !s.isEmpty() && s.codePoints().allMatch(Character::isLetter);
      case "isalnum":
        return !s.isEmpty() && s.codePoints().allMatch(Character::isLetterOrDigit);
      case "isspace":
        return !s.isEmpty() && s.codePoints().allMatch(StrMethods::isSpace);
      case "isupper":
        return isUpper(s);
      case "islower":
        return isLower(s);
      case "removeprefix":
        {
          String p = strArg(a, 0, name);
          return s.startsWith(p) ? s.substring(p.length()) : s;
        }
      case "removesuffix":
        {
          String p = strArg(a, 0, name);
          return s.endsWith(p) && !p.isEmpty() ? s.substring(0, s.length() - p.length()) : s;
        }
      case "splitlines":
        return new ArrayList<>(splitlines(s));
      case "partition":
      case "rpartition":
        {
          String sep = strArg(a, 0, name);
          int i = name.equals("partition") ? s.indexOf(sep) : s.lastIndexOf(sep);
          if (i < 0) {
            return name.equals("partition") ? new PyTuple(s, "", "") : new PyTuple("", "", s);
          }
          return new PyTuple(s.substring(0, i), sep, s.substring(i + sep.length()));
        }
      default:
        throw TemplateError.unsupported("str method " + name);
    }
  }

  /** {@code str.format}: {@code {}}, {@code {0}}, {@code {name}}, {@code {{}}/{@code }}}. */
  static String format(String s, List<Object> a, Map<String, Object> kw) {
    StringBuilder sb = new StringBuilder();
    int auto = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '{') {
        if (i + 1 < s.length() && s.charAt(i + 1) == '{') {
          sb.append('{');
          i++;
          continue;
        }
        int end = s.indexOf('}', i);
        if (end < 0) {
          throw TemplateError.of("ValueError", "Single '{' encountered in format string");
        }
        String field = s.substring(i + 1, end);
        if (field.contains(":")
            || field.contains("!")
            || field.contains(".")
            || field.contains("[")) {
          throw TemplateError.unsupported("str.format field spec {" + field + "}");
        }
        Object v;
        if (field.isEmpty()) {
          v = Methods.arg(a, auto++, "format");
        } else if (Character.isDigit(field.charAt(0))) {
          v = Methods.arg(a, Integer.parseInt(field), "format");
        } else {
          if (!kw.containsKey(field)) {
            throw TemplateError.of("KeyError", "'" + field + "'");
          }
          v = kw.get(field);
        }
        Py.appendStr(sb, v);
        Limits.checkBuilt(sb, "str.format");
        i = end;
      } else if (c == '}') {
        if (i + 1 < s.length() && s.charAt(i + 1) == '}') {
          i++;
        }
        sb.append('}');
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
