package io.kvrouter.tools.report;

/** A titled part of the report: a heading, a line saying how to read it, and its content. */
final class Section {
  private Section() {}

  /**
   * @param id the section's element id, for linking to it and for tests to find it
   * @param body markup, already escaped
   */
  static String html(String id, String heading, String note, String body) {
    return "<section id=\""
        + Xml.escape(id)
        + "\">\n<h2>"
        + Xml.escape(heading)
        + "</h2>\n"
        + "<p class=\"note\">"
        + Xml.escape(note)
        + "</p>\n"
        + body
        + "</section>\n";
  }
}
