package io.kvrouter.preprocess.template;

import com.hubspot.jinjava.objects.SafeString;
import com.hubspot.jinjava.objects.collections.PyList;
import java.beans.FeatureDescriptor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Python {@code str} methods that chat templates call ({@code content.startswith('<tool_')}, {@code
 * content.split('</think>')[-1].lstrip('\n')}, ...), which Jinjava does not have since its strings
 * are {@code java.lang.String}. Sits in front of Jinjava's own resolver and handles only these
 * method names on strings.
 */
final class PyStringMethods extends ELResolver {

  private static final Set<String> METHODS =
      Set.of(
          "startswith",
          "endswith",
          "strip",
          "lstrip",
          "rstrip",
          "split",
          "upper",
          "lower",
          "replace",
          "title",
          "capitalize");

  @Override
  public Object invoke(
      ELContext context, Object base, Object method, Class<?>[] paramTypes, Object[] params) {
    if (!(base instanceof String || base instanceof SafeString) || method == null) {
      return null;
    }
    String name = method.toString();
    if (!METHODS.contains(name)) {
      return null;
    }
    Object[] args = params == null ? new Object[0] : params;
    Object result = call(base.toString(), name, args);
    context.setPropertyResolved(true);
    return result;
  }

  static Object call(String s, String name, Object[] args) {
    return switch (name) {
      case "startswith" -> anyAffix(s, arg(args, 0, name), true);
      case "endswith" -> anyAffix(s, arg(args, 0, name), false);
      case "strip" -> rstrip(lstrip(s, optChars(args)), optChars(args));
      case "lstrip" -> lstrip(s, optChars(args));
      case "rstrip" -> rstrip(s, optChars(args));
      case "split" -> split(s, args);
      case "upper" -> s.toUpperCase(java.util.Locale.ROOT);
      case "lower" -> s.toLowerCase(java.util.Locale.ROOT);
      case "title" -> title(s);
      case "capitalize" ->
          s.isEmpty()
              ? s
              : s.substring(0, 1).toUpperCase(java.util.Locale.ROOT)
                  + s.substring(1).toLowerCase(java.util.Locale.ROOT);
      case "replace" -> replace(s, args);
      default -> throw new IllegalArgumentException("unsupported str method " + name);
    };
  }

  private static Object arg(Object[] args, int i, String name) {
    if (args.length <= i) {
      throw new IllegalArgumentException(name + "() takes at least " + (i + 1) + " argument(s)");
    }
    return args[i];
  }

  private static boolean anyAffix(String s, Object affix, boolean prefix) {
    if (affix instanceof List<?> list) {
      for (Object o : list) {
        if (prefix ? s.startsWith(String.valueOf(o)) : s.endsWith(String.valueOf(o))) {
          return true;
        }
      }
      return false;
    }
    String a = String.valueOf(affix);
    return prefix ? s.startsWith(a) : s.endsWith(a);
  }

  /** The {@code chars} argument: null means Python's default, whitespace. */
  private static String optChars(Object[] args) {
    return args.length == 0 || args[0] == null ? null : args[0].toString();
  }

  private static boolean strippable(char c, String chars) {
    return chars == null
        ? Character.isWhitespace(c) || Character.isSpaceChar(c)
        : chars.indexOf(c) >= 0;
  }

  static String lstrip(String s, String chars) {
    int i = 0;
    while (i < s.length() && strippable(s.charAt(i), chars)) {
      i++;
    }
    return s.substring(i);
  }

  static String rstrip(String s, String chars) {
    int end = s.length();
    while (end > 0 && strippable(s.charAt(end - 1), chars)) {
      end--;
    }
    return s.substring(0, end);
  }

  private static PyList split(String s, Object[] args) {
    String sep = args.length > 0 && args[0] != null ? args[0].toString() : null;
    int maxSplit = args.length > 1 && args[1] != null ? ((Number) args[1]).intValue() : -1;
    List<Object> parts = new ArrayList<>();
    if (sep == null) {
      // Python: split on runs of whitespace, no empty strings
      int i = 0;
      int n = s.length();
      while (i < n) {
        while (i < n && Character.isWhitespace(s.charAt(i))) {
          i++;
        }
        if (i >= n) {
          break;
        }
        if (maxSplit >= 0 && parts.size() == maxSplit) {
          parts.add(rstrip(s.substring(i), null));
          break;
        }
        int j = i;
        while (j < n && !Character.isWhitespace(s.charAt(j))) {
          j++;
        }
        parts.add(s.substring(i, j));
        i = j;
      }
    } else {
      if (sep.isEmpty()) {
        throw new IllegalArgumentException("empty separator");
      }
      int start = 0;
      int idx;
      while ((maxSplit < 0 || parts.size() < maxSplit) && (idx = s.indexOf(sep, start)) >= 0) {
        parts.add(s.substring(start, idx));
        start = idx + sep.length();
      }
      parts.add(s.substring(start));
    }
    return new PyList(parts);
  }

  private static String replace(String s, Object[] args) {
    String old = String.valueOf(arg(args, 0, "replace"));
    String replacement = String.valueOf(arg(args, 1, "replace"));
    int count = args.length > 2 && args[2] != null ? ((Number) args[2]).intValue() : -1;
    if (count < 0) {
      return s.replace(old, replacement);
    }
    StringBuilder sb = new StringBuilder();
    int start = 0;
    int done = 0;
    int idx;
    while (done < count && (idx = s.indexOf(old, start)) >= 0) {
      sb.append(s, start, idx).append(replacement);
      start = idx + old.length();
      done++;
      if (old.isEmpty()) {
        if (start < s.length()) {
          sb.append(s.charAt(start));
        }
        start++;
      }
    }
    if (start <= s.length()) {
      sb.append(s.substring(Math.min(start, s.length())));
    }
    return sb.toString();
  }

  private static String title(String s) {
    StringBuilder sb = new StringBuilder(s.length());
    boolean prevCased = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      sb.append(prevCased ? Character.toLowerCase(c) : Character.toUpperCase(c));
      prevCased = Character.isLetter(c);
    }
    return sb.toString();
  }

  // Property access is left to the next resolver.

  @Override
  public Object getValue(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public Class<?> getType(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public void setValue(ELContext context, Object base, Object property, Object value) {}

  @Override
  public boolean isReadOnly(ELContext context, Object base, Object property) {
    return true;
  }

  @Override
  public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
    return null;
  }

  @Override
  public Class<?> getCommonPropertyType(ELContext context, Object base) {
    return null;
  }
}
