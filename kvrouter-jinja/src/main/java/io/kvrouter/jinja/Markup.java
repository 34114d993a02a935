package io.kvrouter.jinja;

/**
 * What the {@code e}, {@code escape}, {@code forceescape} and {@code safe} filters return:
 * markupsafe's {@code Markup}, a string of HTML. It prints, joins with {@code ~}, compares,
 * iterates and measures as its text; {@code +} escapes a plain string operand; it prints as {@code
 * Markup('...')} inside a list; escaping it again changes nothing. Uses that would build a Markup
 * with escaped arguments (indexing, slicing, {@code *}, {@code %}, methods, most filters) fail as
 * Unsupported rather than lose the difference.
 */
record Markup(String html) {

  /** markupsafe's {@code escape}: Markup stays as it is, anything else is escaped text. */
  static Markup escape(Object v) {
    return new Markup(v instanceof Markup m ? m.html : escapeHtml(Py.str(v)));
  }

  /** {@code &}, {@code <}, {@code >}, {@code "} and {@code '} as markupsafe escapes them. */
  static String escapeHtml(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '&' -> sb.append("&amp;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '"' -> sb.append("&#34;");
        case '\'' -> sb.append("&#39;");
        default -> {
          sb.append(c);
          continue;
        }
      }
      Limits.checkBuilt(sb, "filter escape");
    }
    return sb.toString();
  }

  /** {@code a + b} where one of them is Markup: a plain string operand is escaped. */
  static Markup concat(Object a, Object b) {
    String left = a instanceof Markup m ? m.html : escapeHtml((String) a);
    String right = b instanceof Markup m ? m.html : escapeHtml((String) b);
    Limits.checkLength((long) left.length() + right.length(), "a concatenation");
    return new Markup(left + right);
  }

  /** The text of a string or Markup, else null. */
  static String text(Object v) {
    return v instanceof String s ? s : v instanceof Markup m ? m.html : null;
  }

  static TemplateError unsupported(String what) {
    return TemplateError.unsupported(
        what
            + " of an escaped string (Markup, from the e, escape,"
            + " forceescape or safe filter)");
  }

  @Override
  public String toString() {
    return html;
  }
}
