package io.kvrouter.jinja;

import java.util.LinkedHashMap;
import java.util.Map;

/** Jinja2's {@code namespace(...)}: the one object whose attributes {@code set} may assign. */
final class Namespace {
  final Map<String, Object> attrs = new LinkedHashMap<>();

  @Override
  public String toString() {
    return "<Namespace " + Py.repr(attrs) + ">";
  }
}
