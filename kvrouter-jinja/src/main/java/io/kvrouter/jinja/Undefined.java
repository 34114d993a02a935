package io.kvrouter.jinja;

/**
 * Jinja2's default {@code Undefined}: prints as "", is falsy, iterates as empty and has length 0,
 * but raises {@code UndefinedError} with {@link #hint} when used in arithmetic, compared with
 * {@code <}, indexed or called. Distinct from {@code None} (Java {@code null}).
 */
record Undefined(String hint) {
  static Undefined name(String name) {
    return new Undefined("'" + name + "' is undefined");
  }

  static Undefined attr(Object owner, String attr) {
    return new Undefined("'" + Py.objectName(owner) + "' has no attribute '" + attr + "'");
  }

  static Undefined item(Object owner, Object key) {
    if (key instanceof String s) {
      return attr(owner, s);
    }
    return new Undefined(Py.objectName(owner) + " has no element " + Py.repr(key));
  }

  TemplateError error() {
    return TemplateError.of("UndefinedError", hint);
  }

  @Override
  public String toString() {
    return "";
  }
}
