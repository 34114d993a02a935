package io.kvrouter.jinja;

/**
 * One lexer token: its type, its text (names, operators, decoded strings, numbers) and its line.
 */
record Token(Type type, String text, Object value, int line) {
  enum Type {
    TEXT,
    VAR_BEGIN,
    VAR_END,
    BLOCK_BEGIN,
    BLOCK_END,
    NAME,
    STRING,
    INT,
    FLOAT,
    OP,
    EOF
  }

  boolean is(Type t, String s) {
    return type == t && text.equals(s);
  }

  boolean isOp(String s) {
    return type == Type.OP && text.equals(s);
  }

  boolean isName(String s) {
    return type == Type.NAME && text.equals(s);
  }

  @Override
  public String toString() {
    return type == Type.EOF ? "end of template" : "'" + text + "'";
  }
}
