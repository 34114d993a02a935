package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.FilterFn;
import io.kvrouter.jinja.Node.TestFn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * Jinja2's built-in filters as Hugging Face's environment has them (with its {@code tojson}), and
 * its tests ({@link Tests}). Unknown names are rejected when the template is parsed.
 */
final class Builtins {
  static final Builtins DEFAULT = new Builtins();

  private final Map<String, FilterFn> filters = new HashMap<>();
  private final Tests tests = new Tests(name -> filters.containsKey(name));

  FilterFn filter(String name) {
    return filters.get(name);
  }

  TestFn test(String name) {
    return tests.get(name);
  }

  /** Argument {@code pos} or keyword {@code name}, else {@code dflt}. */
  static Object arg(List<Object> a, Map<String, Object> kw, int pos, String name, Object dflt) {
    if (pos >= 0 && pos < a.size()) {
      return a.get(pos);
    }
    return kw.containsKey(name) ? kw.get(name) : dflt;
  }

  private Builtins() {
    // ---- strings ----
    filters.put(
        "trim",
        (v, a, kw) -> {
          Object chars = arg(a, kw, 0, "chars", null);
          if (chars != null && !(chars instanceof String)) {
            throw TemplateError.typeError("strip arg must be None or str");
          }
          return StrMethods.strip(Py.str(v), (String) chars);
        });
    filters.put("string", (v, a, kw) -> v instanceof Markup ? v : Py.str(v));
    filters.put("upper", (v, a, kw) -> Py.str(v).toUpperCase(Locale.ROOT));
    filters.put("lower", (v, a, kw) -> Py.str(v).toLowerCase(Locale.ROOT));
    filters.put("title", (v, a, kw) -> title(Py.str(v)));
    filters.put("capitalize", (v, a, kw) -> StrMethods.capitalize(Py.str(v)));
    filters.put(
        "replace",
        (v, a, kw) -> {
          Object count = arg(a, kw, 2, "count", null);
          return StrMethods.replace(
              Py.str(v),
              Py.str(arg(a, kw, 0, "old", "")),
              Py.str(arg(a, kw, 1, "new", "")),
              count == null ? -1 : Py.index(count));
        });
    filters.put("safe", (v, a, kw) -> new Markup(Py.str(v)));
    FilterFn escape = (v, a, kw) -> Markup.escape(v);
    filters.put("e", escape);
    filters.put("escape", escape);
    filters.put("forceescape", (v, a, kw) -> new Markup(Markup.escapeHtml(Py.str(v))));
    filters.put(
        "indent",
        (v, a, kw) ->
            indent(
                Py.str(v),
                arg(a, kw, 0, "width", 4L),
                Py.truthy(arg(a, kw, 1, "first", false)),
                Py.truthy(arg(a, kw, 2, "blank", false))));
    filters.put("wordcount", (v, a, kw) -> wordcount(Py.str(v)));
    filters.put(
        "center",
        (v, a, kw) -> {
          String s = Py.str(v);
          long width = Py.index(arg(a, kw, 0, "width", 80L));
          int n = s.codePointCount(0, s.length());
          if (width <= n) {
            return s;
          }
          int total = Limits.checkLength(width, "filter center") - n;
          int left = total / 2 + (total & (int) width & 1);
          return " ".repeat(left) + s + " ".repeat(total - left);
        });
    filters.put(
        "format",
        (v, a, kw) -> {
          if (!a.isEmpty() && !kw.isEmpty()) {
            throw TemplateError.of(
                "FilterArgumentError",
                "can't handle positional and keyword arguments at the same time");
          }
          return Printf.format(Py.str(v), kw.isEmpty() ? new PyTuple(a.toArray()) : kw);
        });
    // ---- conversion ----
    filters.put(
        "int",
        (v, a, kw) ->
            Conversions.toInt(v, arg(a, kw, 0, "default", 0L), arg(a, kw, 1, "base", 10L)));
    filters.put("float", (v, a, kw) -> Conversions.toFloat(v, arg(a, kw, 0, "default", 0.0)));
    filters.put("list", (v, a, kw) -> new ArrayList<>(Py.iterable(v)));
    filters.put(
        "tojson",
        (v, a, kw) -> {
          Object indent = arg(a, kw, 1, "indent", null);
          String ind = null;
          if (indent instanceof String s) {
            ind = s;
          } else if (indent != null && Py.isInt(indent)) {
            ind = " ".repeat(Limits.checkLength(Math.max(0, Py.toLong(indent)), "tojson's indent"));
          }
          Object seps = arg(a, kw, 2, "separators", null);
          String itemSep = null;
          String keySep = null;
          if (seps instanceof List<?> l && l.size() == 2) {
            itemSep = (String) l.get(0);
            keySep = (String) l.get(1);
          }
          boolean ascii = Py.truthy(arg(a, kw, 0, "ensure_ascii", false));
          boolean sort = Py.truthy(arg(a, kw, 3, "sort_keys", false));
          return new Json(ascii, ind, itemSep, keySep, sort).dumps(v);
        });
    // ---- sequences ----
    FilterFn length = (v, a, kw) -> (long) Py.length(v);
    filters.put("length", length);
    filters.put("count", length);
    // next(iter(seq)): a generator gives up one item only
    filters.put(
        "first",
        (v, a, kw) -> {
          Iterator<?> it = Py.iterator(v);
          return it.hasNext() ? it.next() : new Undefined("No first item, sequence was empty.");
        });
    filters.put(
        "last",
        (v, a, kw) -> {
          PyIterator it = Py.reversed(v);
          return it.hasNext() ? it.next() : new Undefined("No last item, sequence was empty.");
        });
    filters.put(
        "join",
        (v, a, kw) -> {
          String sep = Py.str(arg(a, kw, 0, "d", ""));
          Object attr = arg(a, kw, 1, "attribute", null);
          StringBuilder sb = new StringBuilder();
          boolean first = true;
          for (Object o : Py.iterable(v)) {
            if (!first) {
              sb.append(sep);
            }
            first = false;
            Py.appendStr(sb, attr == null ? o : attribute(o, attr));
            Limits.checkBuilt(sb, "filter join");
          }
          return sb.toString();
        });
    // do_reverse: a string reversed, else reversed(value), else list(value) reversed
    filters.put(
        "reverse",
        (v, a, kw) -> {
          if (v instanceof String s) {
            return new StringBuilder(s).reverse().toString();
          }
          if (Py.isReversible(v)) {
            return Py.reversed(v);
          }
          if (!Py.isIterable(v)) {
            throw TemplateError.of("FilterArgumentError", "argument must be iterable");
          }
          List<Object> r = new ArrayList<>(Py.iterable(v));
          Collections.reverse(r);
          return r;
        });
    filters.put(
        "sort",
        (v, a, kw) -> {
          boolean reverse = Py.truthy(arg(a, kw, 0, "reverse", false));
          boolean cs = Py.truthy(arg(a, kw, 1, "case_sensitive", false));
          Object attr = arg(a, kw, 2, "attribute", null);
          List<Object> r = new ArrayList<>(Py.iterable(v));
          sort(r, o -> sortKey(attr == null ? o : attribute(o, attr), cs), reverse);
          return r;
        });
    filters.put(
        "unique",
        (v, a, kw) -> {
          boolean cs = Py.truthy(arg(a, kw, 0, "case_sensitive", false));
          Object attr = arg(a, kw, 1, "attribute", null);
          return PyIterator.generator(
              () -> {
                List<Object> seen = new ArrayList<>(); // a set in Python: keys must be hashable
                return stream(Py.iterator(v))
                    .filter(
                        o -> {
                          Object k = sortKey(attr == null ? o : attribute(o, attr), cs);
                          DictKeys.checkHashable(k);
                          if (seen.stream().anyMatch(s -> Py.eq(s, k))) {
                            return false;
                          }
                          seen.add(k);
                          return true;
                        })
                    .iterator();
              });
        });
    filters.put(
        "items",
        (v, a, kw) ->
            PyIterator.generator(
                () -> {
                  if (v instanceof Undefined) {
                    return PyIterator.empty();
                  }
                  if (!(v instanceof Map<?, ?> m)) {
                    throw TemplateError.typeError("Can only get item pairs from a mapping.");
                  }
                  return stream(m.entrySet().iterator())
                      .map(
                          e ->
                              (Object)
                                  Methods.pair(
                                      ((Map.Entry<?, ?>) e).getKey(),
                                      ((Map.Entry<?, ?>) e).getValue()))
                      .iterator();
                }));
    filters.put(
        "dictsort",
        (v, a, kw) -> {
          boolean cs = Py.truthy(arg(a, kw, 0, "case_sensitive", false));
          String by = Py.str(arg(a, kw, 1, "by", "key"));
          boolean reverse = Py.truthy(arg(a, kw, 2, "reverse", false));
          if (!(v instanceof Map<?, ?> m)) {
            throw TemplateError.typeError("dictsort expects a mapping");
          }
          if (!by.equals("key") && !by.equals("value")) {
            throw TemplateError.of(
                "FilterArgumentError", "You can only sort by either \"key\" or \"value\"");
          }
          int idx = by.equals("value") ? 1 : 0;
          List<Object> r = Methods.pairs(m);
          sort(r, pair -> sortKey(((List<?>) pair).get(idx), cs), reverse);
          return r;
        });
    filters.put(
        "batch",
        (v, a, kw) ->
            PyIterator.generator(
                () -> {
                  Object n = arg(a, kw, 0, "linecount", 1L);
                  Object fill = arg(a, kw, 1, "fill_with", null);
                  List<Object> r = new ArrayList<>();
                  List<Object> cur = new ArrayList<>();
                  for (Object o : Py.iterable(v)) {
                    if (Py.eq((long) cur.size(), n)) {
                      r.add(cur);
                      cur = new ArrayList<>();
                    }
                    cur.add(o);
                  }
                  if (!cur.isEmpty()) {
                    if (fill != null) {
                      long missing = Py.index(n) - cur.size();
                      cur.addAll(
                          Collections.nCopies(
                              Limits.checkLength(Math.max(0, missing), "filter batch's filling"),
                              fill));
                    }
                    r.add(cur);
                  }
                  return r.iterator();
                }));
    filters.put(
        "sum",
        (v, a, kw) -> {
          Object attr = arg(a, kw, 0, "attribute", null);
          Object total = arg(a, kw, 1, "start", 0L);
          if (total instanceof String) {
            throw TemplateError.typeError("sum() can't sum strings [use ''.join(seq) instead]");
          }
          for (Object o : Py.iterable(v)) {
            total = Py.add(total, attr == null ? o : attribute(o, attr));
          }
          return total;
        });
    filters.put("min", (v, a, kw) -> minMax(v, a, kw, false));
    filters.put("max", (v, a, kw) -> minMax(v, a, kw, true));
    filters.put(
        "map",
        (v, a, kw) ->
            PyIterator.generator(
                () ->
                    Py.truthy(v)
                        ? stream(Py.iterator(v)).map(mapper(a, kw)).iterator()
                        : PyIterator.empty()));
    filters.put(
        "groupby",
        (v, a, kw) -> {
          if (a.isEmpty() && !kw.containsKey("attribute")) {
            throw TemplateError.typeError(
                "sync_do_groupby() missing 1 required positional argument: 'attribute'");
          }
          return groupby(
              v,
              arg(a, kw, 0, "attribute", null),
              arg(a, kw, 1, "default", null),
              Py.truthy(arg(a, kw, 2, "case_sensitive", false)));
        });
    filters.put(
        "truncate",
        (v, a, kw) ->
            truncate(
                v,
                arg(a, kw, 0, "length", 255L),
                Py.truthy(arg(a, kw, 1, "killwords", false)),
                arg(a, kw, 2, "end", "..."),
                arg(a, kw, 3, "leeway", null)));
    // Jinja2's other filters: a template may name them; using one fails when it is evaluated
    for (String name :
        new String[] {
          "filesizeformat",
          "pprint",
          "random",
          "slice",
          "striptags",
          "urlencode",
          "urlize",
          "wordwrap",
          "xmlattr"
        }) {
      filters.put(
          name,
          (v, a, kw) -> {
            throw TemplateError.unsupported("the filter " + name);
          });
    }
    filters.put("select", (v, a, kw) -> select(v, a, kw, false, false));
    filters.put("reject", (v, a, kw) -> select(v, a, kw, true, false));
    filters.put("selectattr", (v, a, kw) -> select(v, a, kw, false, true));
    filters.put("rejectattr", (v, a, kw) -> select(v, a, kw, true, true));
    // ---- values ----
    filters.put(
        "default",
        (v, a, kw) -> {
          Object dflt = arg(a, kw, 0, "default_value", "");
          boolean bool = Py.truthy(arg(a, kw, 1, "boolean", false));
          if (v instanceof Undefined || (bool && !Py.truthy(v))) {
            return dflt;
          }
          return v;
        });
    filters.put("d", filters.get("default"));
    filters.put(
        "abs",
        (v, a, kw) -> {
          if (v instanceof Double d) {
            return Math.abs(d);
          }
          if (Py.isInt(v)) {
            return PyInt.abs(v);
          }
          throw TemplateError.typeError("bad operand type for abs(): '" + Py.typeName(v) + "'");
        });
    filters.put(
        "round",
        (v, a, kw) ->
            Round.round(v, arg(a, kw, 0, "precision", 0L), arg(a, kw, 1, "method", "common")));
    filters.put("attr", (v, a, kw) -> Py.getAttr(v, Py.str(arg(a, kw, 0, "name", ""))));

    // Parameters of each filter (after the value): more positional arguments, or a keyword not
    // in the list, is a TypeError as in Python, never silently ignored. Filters taking *args
    // (map, select, reject, selectattr, rejectattr, format) are not listed.
    String[][] signatures = {
      {"trim", "chars"},
      {"string"},
      {"upper"},
      {"lower"},
      {"title"},
      {"capitalize"},
      {"safe"},
      {"e"},
      {"escape"},
      {"forceescape"},
      {"wordcount"},
      {"list"},
      {"length"},
      {"count"},
      {"first"},
      {"last"},
      {"reverse"},
      {"abs"},
      {"items"},
      {"replace", "old", "new", "count"},
      {"indent", "width", "first", "blank"},
      {"center", "width"},
      {"int", "default", "base"},
      {"float", "default"},
      {"tojson", "ensure_ascii", "indent", "separators", "sort_keys"},
      {"join", "d", "attribute"},
      {"sort", "reverse", "case_sensitive", "attribute"},
      {"unique", "case_sensitive", "attribute"},
      {"dictsort", "case_sensitive", "by", "reverse"},
      {"batch", "linecount", "fill_with"},
      {"sum", "attribute", "start"},
      {"min", "case_sensitive", "attribute"},
      {"max", "case_sensitive", "attribute"},
      {"default", "default_value", "boolean"},
      {"d", "default_value", "boolean"},
      {"round", "precision", "method"},
      {"attr", "name"},
      {"groupby", "attribute", "default", "case_sensitive"},
      {"truncate", "length", "killwords", "end", "leeway"}
    };
    for (String[] sig : signatures) {
      String name = sig[0];
      List<String> params = List.of(sig).subList(1, sig.length);
      FilterFn fn = filters.get(name);
      filters.put(
          name,
          (v, a, kw) -> {
            if (a.size() > params.size()) {
              throw TemplateError.typeError(
                  "filter "
                      + name
                      + " takes at most "
                      + params.size()
                      + " argument(s) but "
                      + a.size()
                      + " were given");
            }
            for (String k : kw.keySet()) {
              int at = params.indexOf(k);
              if (at < 0) {
                throw TemplateError.typeError(
                    "filter " + name + " got an unexpected keyword argument '" + k + "'");
              }
              if (at < a.size()) {
                throw TemplateError.typeError(
                    "filter " + name + " got multiple values for argument '" + k + "'");
              }
            }
            return fn.apply(v, a, kw);
          });
    }
    filters.replaceAll(Builtins::markupAware);
  }

  /** Filters that take a Markup as Python does: they escape it, keep it or measure it. */
  private static final Set<String> MARKUP_AS_IS =
      Set.of("e", "escape", "forceescape", "safe", "string", "default", "d", "length", "count");

  /** Filters whose result is plain text (or not text) in Python, given a Markup or its text. */
  private static final Set<String> MARKUP_AS_TEXT =
      Set.of("wordcount", "tojson", "list", "first", "join", "replace", "title", "int", "float");

  /** Filters that return Markup of the changed text, as Markup's own str methods do. */
  private static final Set<String> MARKUP_KEPT = Set.of("upper", "lower", "capitalize");

  /**
   * The filter {@code fn} as Python runs it on Markup (see the sets above; any other filter of a
   * Markup fails as Unsupported). Markup arguments are passed as their text, which is what the
   * filters make of them with autoescape off, but to default, which returns its argument.
   */
  private static FilterFn markupAware(String name, FilterFn fn) {
    boolean keepArgs = name.equals("default") || name.equals("d");
    return (v, a, kw) -> {
      List<Object> args = keepArgs ? a : textOf(a);
      Map<String, Object> kwargs = keepArgs ? kw : textOf(kw);
      if (!(v instanceof Markup m) || MARKUP_AS_IS.contains(name)) {
        return fn.apply(v, args, kwargs);
      }
      if (MARKUP_AS_TEXT.contains(name)) {
        return fn.apply(m.html(), args, kwargs);
      }
      if (MARKUP_KEPT.contains(name)) {
        return new Markup(Py.str(fn.apply(m.html(), args, kwargs)));
      }
      throw Markup.unsupported("the filter " + name);
    };
  }

  private static List<Object> textOf(List<Object> args) {
    if (args.stream().noneMatch(o -> o instanceof Markup)) {
      return args;
    }
    List<Object> r = new ArrayList<>(args.size());
    for (Object o : args) {
      r.add(o instanceof Markup m ? m.html() : o);
    }
    return r;
  }

  private static Map<String, Object> textOf(Map<String, Object> kwargs) {
    if (kwargs.values().stream().noneMatch(o -> o instanceof Markup)) {
      return kwargs;
    }
    Map<String, Object> r = new java.util.LinkedHashMap<>(kwargs);
    r.replaceAll((k, o) -> o instanceof Markup m ? m.html() : o);
    return r;
  }

  /** Jinja2's {@code do_wordcount}: runs of word characters ({@code \w+}), not of non-space. */
  private static long wordcount(String s) {
    long n = 0;
    boolean inWord = false;
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      int type = Character.getType(cp);
      // Python's \w: str.isalnum() (letters and every kind of digit) or the underscore
      boolean word =
          cp == '_'
              || Character.isLetter(cp)
              || type == Character.DECIMAL_DIGIT_NUMBER
              || type == Character.LETTER_NUMBER
              || type == Character.OTHER_NUMBER;
      if (word && !inWord) {
        n++;
      }
      inWord = word;
    }
    return n;
  }

  /**
   * Python's {@code list.sort(key=key, reverse=reverse)}: stable, and reversed by comparing the
   * other way round, so that equal keys keep their order (unlike sorting, then reversing).
   */
  private static void sort(List<Object> items, UnaryOperator<Object> key, boolean reverse) {
    List<Object[]> keyed = new ArrayList<>(items.size());
    for (Object o : items) {
      keyed.add(new Object[] {key.apply(o), o});
    }
    Comparator<Object[]> byKey = (x, y) -> Py.compare(x[0], y[0], "<");
    keyed.sort(reverse ? byKey.reversed() : byKey);
    items.clear();
    for (Object[] k : keyed) {
      items.add(k[1]);
    }
  }

  /**
   * Jinja2's {@code do_title}: the string split at runs of whitespace, hyphens and opening
   * brackets ({@code [-\s({\[<]+}), each piece's first code point upper-cased and the rest
   * lower-cased (unlike {@code str.title}, an apostrophe or a digit does not start a word).
   */
  static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    int i = 0;
    while (i < s.length()) {
      int cp = s.codePointAt(i);
      int next = i + Character.charCount(cp);
      if (isTitleSeparator(cp)) {
        sb.appendCodePoint(cp);
        i = next;
        continue;
      }
      int end = next;
      while (end < s.length() && !isTitleSeparator(s.codePointAt(end))) {
        end += Character.charCount(s.codePointAt(end));
      }
      sb.append(Py.character(cp).toUpperCase(Locale.ROOT))
          .append(s.substring(next, end).toLowerCase(Locale.ROOT));
      i = end;
    }
    return sb.toString();
  }

  private static boolean isTitleSeparator(int cp) {
    return cp == '-' || cp == '(' || cp == '{' || cp == '[' || cp == '<' || StrMethods.isSpace(cp);
  }

  /** Jinja2's {@code ignore_case}: strings (Markup too) lower-cased unless case-sensitive. */
  private static Object sortKey(Object v, boolean caseSensitive) {
    String s = Markup.text(v);
    return !caseSensitive && s != null ? s.toLowerCase(Locale.ROOT) : v;
  }

  /** {@code attribute='a.b'} or an integer index path, as Jinja2's make_attrgetter. */
  static Object attribute(Object o, Object attr) {
    return attribute(o, attr, null);
  }

  /** The same, with {@code dflt} (unless None) for each step that is Undefined. */
  private static Object attribute(Object o, Object attr, Object dflt) {
    if (attr instanceof Long l) {
      Object r = Py.getItem(o, l);
      return dflt != null && r instanceof Undefined ? dflt : r;
    }
    Object cur = o;
    for (String part : Py.str(attr).split("\\.")) {
      Object key = part;
      if (!part.isEmpty() && part.chars().allMatch(Character::isDigit)) {
        key = Long.parseLong(part);
      }
      cur = Py.getItem(cur, key);
      if (dflt != null && cur instanceof Undefined) {
        cur = dflt;
      }
    }
    return cur;
  }

  /**
   * Jinja2's {@code do_groupby}: the items sorted by the attribute, then grouped where it is equal,
   * each group named by the attribute of its first item (in its own case).
   */
  private static List<Object> groupby(Object v, Object attr, Object dflt, boolean cs) {
    List<Object> items = new ArrayList<>(Py.iterable(v));
    sort(items, o -> sortKey(attribute(o, attr, dflt), cs), false);
    List<List<Object>> groups = new ArrayList<>();
    Object key = null;
    for (Object o : items) {
      Object k = sortKey(attribute(o, attr, dflt), cs);
      if (groups.isEmpty() || !Py.eq(k, key)) {
        groups.add(new ArrayList<>());
        key = k;
      }
      groups.get(groups.size() - 1).add(o);
    }
    List<Object> r = new ArrayList<>(groups.size());
    for (List<Object> members : groups) {
      r.add(new GroupTuple(attribute(members.get(0), attr, dflt), members));
    }
    return r;
  }

  /**
   * Jinja2's {@code do_truncate} (leeway 5 by default): a string longer than {@code length} plus
   * leeway is cut to {@code length} less the end's length, at the last space unless {@code
   * killwords}, and the end appended.
   */
  private static Object truncate(
      Object s, Object lengthArg, boolean killwords, Object end, Object leewayArg) {
    long length = Py.index(lengthArg);
    long leeway = leewayArg == null ? 5 : Py.index(leewayArg);
    int endLength = Py.length(end);
    if (length < endLength) {
      throw TemplateError.of(
          "AssertionError", "expected length >= " + endLength + ", got " + length);
    }
    if (leeway < 0) {
      throw TemplateError.of("AssertionError", "expected leeway >= 0, got " + leeway);
    }
    if (Py.length(s) <= length + leeway) {
      return s;
    }
    Object head = Py.slice(s, null, length - endLength, null);
    if (!killwords) {
      if (!(head instanceof String h)) {
        throw TemplateError.of(
            "AttributeError", "'" + Py.typeName(head) + "' object has no attribute 'rsplit'");
      }
      int space = h.lastIndexOf(' ');
      head = space < 0 ? h : h.substring(0, space);
    }
    return Py.add(head, end);
  }

  /** Jinja2's {@code prepare_map}: an attribute getter, or a filter with its arguments. */
  private UnaryOperator<Object> mapper(List<Object> a, Map<String, Object> kw) {
    if (a.isEmpty() && kw.containsKey("attribute")) {
      Object attr = kw.get("attribute");
      Object dflt = kw.get("default");
      for (String k : kw.keySet()) {
        if (!k.equals("attribute") && !k.equals("default")) {
          throw TemplateError.of("FilterArgumentError", "Unexpected keyword argument '" + k + "'");
        }
      }
      return o -> attribute(o, attr, dflt);
    }
    if (a.isEmpty()) {
      throw TemplateError.of("FilterArgumentError", "map requires a filter argument");
    }
    String name = Py.str(a.get(0));
    FilterFn f = filters.get(name);
    if (f == null) {
      throw TemplateError.of("TemplateRuntimeError", "No filter named '" + name + "'.");
    }
    List<Object> rest = a.subList(1, a.size());
    return o -> f.apply(o, rest, kw);
  }

  /** Jinja2's {@code select_or_reject}: a generator whose body, test lookup included, is lazy. */
  private Object select(
      Object v, List<Object> a, Map<String, Object> kw, boolean reject, boolean byAttr) {
    return PyIterator.generator(
        () -> {
          if (!Py.truthy(v)) {
            return PyIterator.empty();
          }
          if (byAttr && a.isEmpty()) {
            throw TemplateError.of("FilterArgumentError", "Missing parameter for attribute name");
          }
          int off = byAttr ? 1 : 0;
          TestFn test = null;
          List<Object> testArgs = List.of();
          if (a.size() > off) {
            String name = Py.str(a.get(off));
            test = tests.get(name);
            if (test == null) {
              throw TemplateError.of("TemplateRuntimeError", "No test named '" + name + "'.");
            }
            if (!kw.isEmpty()) {
              throw TemplateError.unsupported("keyword arguments to the test " + name);
            }
            testArgs = a.subList(off + 1, a.size());
          }
          TestFn t = test;
          List<Object> args = testArgs;
          return stream(Py.iterator(v))
              .filter(
                  o -> {
                    Object x = byAttr ? attribute(o, a.get(0)) : o;
                    return (t == null ? Py.truthy(x) : t.test(x, args)) != reject;
                  })
              .iterator();
        });
  }

  /** The items of {@code it} as a lazy stream: a generator's body pulls them one by one. */
  private static Stream<Object> stream(Iterator<?> it) {
    return StreamSupport.stream(Spliterators.spliteratorUnknownSize(it, Spliterator.ORDERED), false)
        .map(o -> (Object) o);
  }

  private static Object minMax(Object v, List<Object> a, Map<String, Object> kw, boolean max) {
    boolean cs = Py.truthy(arg(a, kw, 0, "case_sensitive", false));
    Object attr = arg(a, kw, 1, "attribute", null);
    Object best = null;
    Object bestKey = null;
    boolean any = false;
    for (Object o : Py.iterable(v)) {
      Object k = sortKey(attr == null ? o : attribute(o, attr), cs);
      if (!any || (max ? Py.compare(k, bestKey, ">") > 0 : Py.compare(k, bestKey, "<") < 0)) {
        best = o;
        bestKey = k;
        any = true;
      }
    }
    return any ? best : new Undefined("No aggregated item, sequence was empty.");
  }

  /**
   * Jinja2's {@code do_indent}: {@code s + "\n"} split by {@code str.splitlines} (every line
   * boundary, joined back with "\n"), the lines after the first indented unless blank (or all with
   * {@code blank}), the first too with {@code first}.
   */
  private static String indent(String s, Object width, boolean first, boolean blank) {
    String pad =
        width instanceof String w
            ? w
            : " "
                .repeat(
                    Limits.checkLength(
                        Math.max(0, Py.toLong(Py.repeatCount(width))), "filter indent"));
    List<String> lines = StrMethods.splitlines(s + "\n");
    StringBuilder sb = new StringBuilder();
    if (first) {
      sb.append(pad);
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (i > 0) {
        sb.append('\n');
        if (blank || !line.isEmpty()) {
          sb.append(pad);
        }
      }
      sb.append(line);
      Limits.checkBuilt(sb, "filter indent");
    }
    return sb.toString();
  }
}
