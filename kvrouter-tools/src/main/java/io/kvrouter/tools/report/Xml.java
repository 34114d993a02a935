package io.kvrouter.tools.report;

/**
 * Escapes text for the report's markup. The report is XHTML-compatible HTML5, so the five XML
 * special characters are enough, in element content and in quoted attribute values alike.
 */
final class Xml {
  private Xml() {}

  static String escape(String text) {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }
}
