package io.kvrouter.jinja;

import io.kvrouter.jinja.Node.Args;
import io.kvrouter.jinja.Node.Expr;
import io.kvrouter.jinja.Node.Stmt;
import io.kvrouter.jinja.Token.Type;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Recursive-descent parser from tokens to {@link Node}s, with Jinja2's grammar and precedence:
 * conditional expression, {@code or}, {@code and}, {@code not}, comparisons (incl. {@code in},
 * {@code not in}), {@code +}/{@code -}, {@code ~}, {@code *}/{@code /}/{@code //}/{@code %}, {@code
 * **}, unary minus, then postfix (attribute, subscript, slice, call), filters and tests ({@code not
 * x is defined} is {@code not (x is defined)}).
 */
final class Parser {
  private final List<Token> tokens;
  private final Builtins builtins;
  private int i;

  /** Recursive descents in progress, see {@link Limits#MAX_NESTING}. */
  private int nesting;

  private final SpecialNames special = new SpecialNames();

  Parser(List<Token> tokens, Builtins builtins) {
    this.tokens = tokens;
    this.builtins = builtins;
  }

  List<Stmt> parseTemplate() {
    List<Stmt> body = parseBody();
    if (peek().type() != Type.EOF) {
      Token t = peek();
      throw TemplateError.syntax("Encountered unknown tag '" + t.text() + "'.", t.line());
    }
    return body;
  }

  private Token peek() {
    return tokens.get(i);
  }

  private Token peek(int ahead) {
    return tokens.get(Math.min(i + ahead, tokens.size() - 1));
  }

  private Token next() {
    return tokens.get(i++);
  }

  private TemplateError unexpected(Token t, String expected) {
    return TemplateError.syntax("expected " + expected + ", got " + t, t.line());
  }

  private Token expect(Type type, String text) {
    Token t = next();
    if (t.type() != type || (text != null && !t.text().equals(text))) {
      throw unexpected(t, text != null ? "'" + text + "'" : type.name().toLowerCase());
    }
    return t;
  }

  private void expectOp(String op) {
    expect(Type.OP, op);
  }

  private String expectName() {
    return expect(Type.NAME, null).text();
  }

  private boolean acceptOp(String op) {
    if (peek().isOp(op)) {
      i++;
      return true;
    }
    return false;
  }

  private boolean acceptName(String name) {
    if (peek().isName(name)) {
      i++;
      return true;
    }
    return false;
  }

  /**
   * Every recursive descent (a bracket, an argument list, a unary operator, an inline if, a block)
   * passes here, so a deeply nested template fails with {@link Limits#MAX_NESTING} instead of
   * overflowing the stack. A failed parse is abandoned, so {@link #shallower()} need not run when
   * an error is thrown.
   */
  private void deeper() {
    if (++nesting > Limits.MAX_NESTING) {
      throw Limits.tooDeeplyNested(peek().line());
    }
  }

  private void shallower() {
    nesting--;
  }

  /**
   * Statements until EOF or a block tag whose first word is not a statement start (an end or middle
   * tag such as {@code endif}, {@code else}); stops positioned on that word.
   */
  private List<Stmt> parseBody() {
    List<Stmt> body = new ArrayList<>();
    while (true) {
      Token t = peek();
      switch (t.type()) {
        case EOF:
          return body;
        case TEXT:
          i++;
          body.add(new Node.Text(t.text()));
          break;
        case VAR_BEGIN:
          {
            i++;
            Expr e = parseExpression(true);
            expect(Type.VAR_END, null);
            body.add(new Node.Output(e, t.line()));
            break;
          }
        case BLOCK_BEGIN:
          {
            Token word = peek(1);
            if (word.type() != Type.NAME) {
              throw unexpected(word, "a statement name");
            }
            Stmt s = parseStatement(word);
            if (s == null) {
              i++; // leave the parser on the end/middle word
              return body;
            }
            body.add(s);
            break;
          }
        default:
          throw unexpected(t, "template data");
      }
    }
  }

  /** Parses a body and then the closing tag, which must be one of {@code ends}; returns it. */
  private String bodyEnd(List<Stmt> into, Token start, String... ends) {
    deeper();
    into.addAll(parseBody());
    shallower();
    Token w = peek();
    if (w.type() == Type.EOF) {
      throw TemplateError.syntax(
          "Unexpected end of template. Jinja was looking for the following tags: '"
              + String.join("' or '", ends)
              + "'. The innermost block that needs to be closed is '"
              + start.text()
              + "'.",
          start.line());
    }
    for (String e : ends) {
      if (w.isName(e)) {
        i++;
        return e;
      }
    }
    throw TemplateError.syntax(
        "Encountered unknown tag '"
            + w.text()
            + "'. Jinja was looking for the following tags: '"
            + String.join("' or '", ends)
            + "'.",
        w.line());
  }

  private Stmt parseStatement(Token word) {
    int line = word.line();
    switch (word.text()) {
      case "if":
        i += 2;
        return parseIf(word);
      case "for":
        i += 2;
        return parseFor(word);
      case "set":
        i += 2;
        return parseSet(word);
      case "macro":
        i += 2;
        return parseMacro(word);
      case "filter":
        i += 2;
        return parseFilterBlock(word);
      case "break":
      case "continue":
        i += 2;
        expect(Type.BLOCK_END, null);
        return new Node.Control(word.text().equals("break") ? Node.BREAK : Node.CONTINUE);
      case "generation":
        {
          i += 2;
          expect(Type.BLOCK_END, null);
          List<Stmt> body = new ArrayList<>();
          bodyEnd(body, word, "endgeneration");
          expect(Type.BLOCK_END, null);
          return new Node.Block(body);
        }
      case "endif":
      case "elif":
      case "else":
      case "endfor":
      case "endset":
      case "endmacro":
      case "endfilter":
      case "endgeneration":
      case "endcall":
        return null;
      case "call":
        i += 2;
        return parseCallBlock(word);
      case "include":
      case "import":
      case "from":
      case "extends":
      case "block":
      case "with":
      case "autoescape":
      case "do":
      case "trans":
        throw TemplateError.syntax(
            "unsupported template construct: {% " + word.text() + " %}", line);
      default:
        throw TemplateError.syntax("Encountered unknown tag '" + word.text() + "'.", line);
    }
  }

  private Stmt parseIf(Token start) {
    List<Expr> tests = new ArrayList<>();
    List<List<Stmt>> bodies = new ArrayList<>();
    List<Stmt> otherwise = null;
    tests.add(parseExpression(true));
    expect(Type.BLOCK_END, null);
    while (true) {
      List<Stmt> body = new ArrayList<>();
      String end = bodyEnd(body, start, "elif", "else", "endif");
      bodies.add(body);
      if (end.equals("elif")) {
        tests.add(parseExpression(true));
        expect(Type.BLOCK_END, null);
        continue;
      }
      if (end.equals("else")) {
        expect(Type.BLOCK_END, null);
        otherwise = new ArrayList<>();
        bodyEnd(otherwise, start, "endif");
      }
      expect(Type.BLOCK_END, null);
      return new Node.If(tests, bodies, otherwise, start.line());
    }
  }

  private List<String> parseTargets() {
    List<String> names = new ArrayList<>();
    boolean paren = acceptOp("(");
    names.add(storedName());
    while (acceptOp(",")) {
      if (peek().type() != Type.NAME) {
        break;
      }
      names.add(storedName());
    }
    if (paren) {
      expectOp(")");
    }
    return names;
  }

  private Stmt parseFor(Token start) {
    List<String> targets = parseTargets();
    expect(Type.NAME, "in");
    Expr iter = parseExpression(false);
    Expr filter = null;
    if (acceptName("if")) {
      filter = parseExpression(true);
    }
    if (peek().isName("recursive")) {
      throw TemplateError.syntax(
          "unsupported template construct: recursive for loops", start.line());
    }
    expect(Type.BLOCK_END, null);
    List<Stmt> body = new ArrayList<>();
    List<Stmt> otherwise = null;
    String end = bodyEnd(body, start, "endfor", "else");
    if (end.equals("else")) {
      expect(Type.BLOCK_END, null);
      otherwise = new ArrayList<>();
      bodyEnd(otherwise, start, "endfor");
    }
    expect(Type.BLOCK_END, null);
    return new Node.For(targets, iter, filter, body, otherwise, start.line());
  }

  private Stmt parseSet(Token start) {
    String first = expectName();
    if (acceptOp(".")) {
      String attr = expectName();
      expectOp("=");
      Expr value = parseTupleOrExpression();
      expect(Type.BLOCK_END, null);
      return new Node.Set(List.of(first), attr, value, start.line());
    }
    List<String> targets = new ArrayList<>();
    targets.add(first);
    special.stored(first);
    while (acceptOp(",")) {
      targets.add(storedName());
    }
    if (acceptOp("=")) {
      Expr value = parseTupleOrExpression();
      expect(Type.BLOCK_END, null);
      return new Node.Set(targets, null, value, start.line());
    }
    if (targets.size() != 1) {
      throw unexpected(peek(), "'='");
    }
    List<Node.Filter> filters = parseFilterChain(null);
    expect(Type.BLOCK_END, null);
    List<Stmt> body = new ArrayList<>();
    bodyEnd(body, start, "endset");
    expect(Type.BLOCK_END, null);
    return new Node.SetBlock(first, body, filters, start.line());
  }

  private String storedName() {
    String name = expectName();
    special.stored(name);
    return name;
  }

  private Stmt parseMacro(Token start) {
    String name = expectName();
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    expectOp("(");
    parseSignature(params, defaults);
    expect(Type.BLOCK_END, null);
    special.enterBody();
    List<Stmt> body = new ArrayList<>();
    bodyEnd(body, start, "endmacro");
    Set<String> loaded = special.exitBody();
    if (peek().type() == Type.NAME) {
      next();
    }
    expect(Type.BLOCK_END, null);
    return macroDef(name, params, defaults, body, loaded, start.line());
  }

  /** Parameters up to and including the closing parenthesis: {@code a, b=1)}. */
  private void parseSignature(List<String> params, List<Expr> defaults) {
    while (!acceptOp(")")) {
      if (!params.isEmpty()) {
        expectOp(",");
        if (acceptOp(")")) {
          break;
        }
      }
      Token t = peek();
      params.add(storedName());
      if (acceptOp("=")) {
        defaults.add(parseExpression(true));
      } else if (defaults.stream().anyMatch(d -> d != null)) {
        throw TemplateError.syntax("non-default argument follows default argument", t.line());
      } else {
        defaults.add(null);
      }
    }
  }

  /**
   * {@code {% call(params) m(args) %}body{% endcall %}}: calls {@code m(args)} with a keyword
   * argument {@code caller}, a macro of the params whose body is the call block's body.
   */
  private Stmt parseCallBlock(Token start) {
    List<String> params = new ArrayList<>();
    List<Expr> defaults = new ArrayList<>();
    if (acceptOp("(")) {
      parseSignature(params, defaults);
    }
    Expr call = parseExpression(true);
    if (!(call instanceof Node.Call c)) {
      throw TemplateError.syntax("expected call", start.line());
    }
    expect(Type.BLOCK_END, null);
    special.enterBody();
    List<Stmt> body = new ArrayList<>();
    bodyEnd(body, start, "endcall");
    Set<String> loaded = special.exitBody();
    expect(Type.BLOCK_END, null);
    return new Node.CallBlock(
        c, macroDef("caller", params, defaults, body, loaded, start.line()), start.line());
  }

  /** A macro whose body loads {@code loaded} of varargs, kwargs and caller (see SpecialNames). */
  private static Node.MacroDef macroDef(
      String name,
      List<String> params,
      List<Expr> defaults,
      List<Stmt> body,
      Set<String> loaded,
      int line) {
    boolean caller = loaded.contains("caller");
    if (caller && params.contains("caller") && defaults.get(params.indexOf("caller")) == null) {
      throw new TemplateError(
          "TemplateAssertionError",
          "When defining macros or call blocks the"
              + " special \"caller\" argument must be omitted or be given a default.",
          line,
          false);
    }
    return new Node.MacroDef(
        name,
        params,
        defaults,
        body,
        loaded.contains("varargs") && !params.contains("varargs"),
        loaded.contains("kwargs") && !params.contains("kwargs"),
        caller);
  }

  private Stmt parseFilterBlock(Token start) {
    List<Node.Filter> filters = parseFilterChain(null);
    if (filters.isEmpty()) {
      Token t = peek();
      String name = expectName();
      filters = new ArrayList<>();
      filters.add(filterNode(null, name, t.line()));
      filters.addAll(parseFilterChain(null));
    }
    expect(Type.BLOCK_END, null);
    List<Stmt> body = new ArrayList<>();
    bodyEnd(body, start, "endfilter");
    expect(Type.BLOCK_END, null);
    return new Node.FilterBlock(body, filters, start.line());
  }

  private List<Node.Filter> parseFilterChain(Expr base) {
    List<Node.Filter> r = new ArrayList<>();
    while (acceptOp("|")) {
      Token t = peek();
      r.add(filterNode(base, expectName(), t.line()));
    }
    return r;
  }

  private Node.Filter filterNode(Expr arg, String name, int line) {
    while (peek().isOp(".")) {
      i++;
      name = name + "." + expectName();
    }
    Node.FilterFn fn = builtins.filter(name);
    if (fn == null) {
      throw new TemplateError(
          "TemplateAssertionError", "No filter named '" + name + "'.", line, false);
    }
    Args args = peek().isOp("(") ? parseCallArgs() : Args.NONE;
    return new Node.Filter(arg, name, fn, args);
  }

  // ---------------- expressions ----------------

  private Expr parseTupleOrExpression() {
    Expr first = parseExpression(true);
    if (!peek().isOp(",")) {
      return first;
    }
    List<Expr> items = new ArrayList<>();
    items.add(first);
    while (acceptOp(",")) {
      if (peek().type() == Type.BLOCK_END || peek().type() == Type.VAR_END) {
        break;
      }
      items.add(parseExpression(true));
    }
    return new Node.TupleLit(items);
  }

  Expr parseExpression(boolean withCondExpr) {
    deeper();
    Expr e = parseOr();
    if (withCondExpr) {
      while (peek().isName("if")) {
        i++;
        Expr test = parseOr();
        Expr otherwise = acceptName("else") ? parseExpression(true) : null;
        e = new Node.Cond(test, e, otherwise);
      }
    }
    shallower();
    return e;
  }

  private Expr parseOr() {
    Expr l = parseAnd();
    while (acceptName("or")) {
      l = new Node.Or(l, parseAnd());
    }
    return l;
  }

  private Expr parseAnd() {
    Expr l = parseNot();
    while (acceptName("and")) {
      l = new Node.And(l, parseNot());
    }
    return l;
  }

  private Expr parseNot() {
    if (acceptName("not")) {
      deeper();
      Expr e = new Node.Not(parseNot());
      shallower();
      return e;
    }
    return parseCompare();
  }

  private Expr parseCompare() {
    Expr first = parseMath1();
    List<String> ops = new ArrayList<>();
    List<Expr> rest = new ArrayList<>();
    while (true) {
      Token t = peek();
      if (t.type() == Type.OP
          && (t.text().equals("==")
              || t.text().equals("!=")
              || t.text().equals("<")
              || t.text().equals("<=")
              || t.text().equals(">")
              || t.text().equals(">="))) {
        i++;
        ops.add(t.text());
      } else if (t.isName("in")) {
        i++;
        ops.add("in");
      } else if (t.isName("not") && peek(1).isName("in")) {
        i += 2;
        ops.add("notin");
      } else {
        break;
      }
      rest.add(parseMath1());
    }
    return ops.isEmpty() ? first : new Node.Compare(first, ops, rest);
  }

  private Expr parseMath1() {
    Expr l = parseConcat();
    while (peek().isOp("+") || peek().isOp("-")) {
      String op = next().text();
      l = new Node.BinOp(op, l, parseConcat());
    }
    return l;
  }

  private Expr parseConcat() {
    Expr first = parseMath2();
    if (!peek().isOp("~")) {
      return first;
    }
    List<Expr> parts = new ArrayList<>();
    parts.add(first);
    while (acceptOp("~")) {
      parts.add(parseMath2());
    }
    return new Node.Concat(parts);
  }

  private Expr parseMath2() {
    Expr l = parsePow();
    while (peek().isOp("*") || peek().isOp("/") || peek().isOp("//") || peek().isOp("%")) {
      String op = next().text();
      l = new Node.BinOp(op, l, parsePow());
    }
    return l;
  }

  private Expr parsePow() {
    Expr l = parseUnary(true);
    while (acceptOp("**")) {
      l = new Node.BinOp("**", l, parseUnary(true));
    }
    return l;
  }

  private Expr parseUnary(boolean withFilter) {
    Expr e;
    if (peek().isOp("-") || peek().isOp("+")) {
      boolean minus = next().text().equals("-");
      deeper();
      e = new Node.Neg(parseUnary(false), minus);
      shallower();
    } else {
      e = parsePrimary();
    }
    e = parsePostfix(e);
    if (withFilter) {
      e = parseFilterExpr(e);
    }
    return e;
  }

  private Expr parsePrimary() {
    Token t = next();
    switch (t.type()) {
      case NAME:
        switch (t.text()) {
          case "true":
          case "True":
            return new Node.Const(Boolean.TRUE);
          case "false":
          case "False":
            return new Node.Const(Boolean.FALSE);
          case "none":
          case "None":
            return new Node.Const(null);
          default:
            special.loaded(t.text());
            return new Node.Var(t.text());
        }
      case STRING:
        {
          StringBuilder sb = new StringBuilder(t.text());
          while (peek().type() == Type.STRING) {
            sb.append(next().text());
          }
          return new Node.Const(sb.toString());
        }
      case INT:
        return intLiteral(t);
      case FLOAT:
        return new Node.Const(t.value());
      case OP:
        switch (t.text()) {
          case "(":
            {
              if (acceptOp(")")) {
                return new Node.TupleLit(List.of());
              }
              Expr e = parseExpression(true);
              if (peek().isOp(",")) {
                List<Expr> items = new ArrayList<>();
                items.add(e);
                while (acceptOp(",")) {
                  if (peek().isOp(")")) {
                    break;
                  }
                  items.add(parseExpression(true));
                }
                e = new Node.TupleLit(items);
              }
              expectOp(")");
              return e;
            }
          case "[":
            {
              List<Expr> items = new ArrayList<>();
              while (!acceptOp("]")) {
                if (!items.isEmpty()) {
                  expectOp(",");
                  if (acceptOp("]")) {
                    break;
                  }
                }
                items.add(parseExpression(true));
              }
              return new Node.ListLit(items);
            }
          case "{":
            {
              List<Expr> keys = new ArrayList<>();
              List<Expr> values = new ArrayList<>();
              while (!acceptOp("}")) {
                if (!keys.isEmpty()) {
                  expectOp(",");
                  if (acceptOp("}")) {
                    break;
                  }
                }
                keys.add(parseExpression(true));
                expectOp(":");
                values.add(parseExpression(true));
              }
              return new Node.DictLit(keys, values);
            }
          default:
            break;
        }
        break;
      default:
        break;
    }
    throw unexpected(t, "an expression");
  }

  private static Expr intLiteral(Token t) {
    return t.value() instanceof BigInteger b ? new Node.BigInt(b) : new Node.Const(t.value());
  }

  private Expr parsePostfix(Expr e) {
    while (true) {
      if (acceptOp(".")) {
        Token t = next();
        if (t.type() == Type.NAME) {
          e = new Node.Attr(e, t.text());
        } else if (t.type() == Type.INT) {
          e = new Node.Item(e, intLiteral(t));
        } else {
          throw unexpected(t, "an attribute name");
        }
      } else if (acceptOp("[")) {
        e = parseSubscript(e);
      } else if (peek().isOp("(")) {
        e = new Node.Call(e, parseCallArgs());
      } else {
        return e;
      }
    }
  }

  private Expr parseSubscript(Expr obj) {
    Expr start = null;
    if (!peek().isOp(":")) {
      start = parseExpression(true);
      if (acceptOp("]")) {
        return new Node.Item(obj, start);
      }
    }
    expectOp(":");
    Expr stop = null;
    Expr step = null;
    if (!peek().isOp("]") && !peek().isOp(":")) {
      stop = parseExpression(true);
    }
    if (acceptOp(":") && !peek().isOp("]")) {
      step = parseExpression(true);
    }
    expectOp("]");
    return new Node.Slice(obj, start, stop, step);
  }

  private Args parseCallArgs() {
    expectOp("(");
    List<Expr> positional = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Expr> values = new ArrayList<>();
    boolean first = true;
    while (!acceptOp(")")) {
      if (!first) {
        expectOp(",");
        if (acceptOp(")")) {
          break;
        }
      }
      first = false;
      if (peek().isOp("*") || peek().isOp("**")) {
        throw TemplateError.syntax(
            "unsupported template construct: *args/**kwargs in a call", peek().line());
      }
      if (peek().type() == Type.NAME && peek(1).isOp("=")) {
        names.add(next().text());
        i++;
        values.add(parseExpression(true));
      } else {
        if (!names.isEmpty()) {
          throw TemplateError.syntax("positional argument follows keyword argument", peek().line());
        }
        positional.add(parseExpression(true));
      }
    }
    return new Args(positional, names, values);
  }

  private Expr parseFilterExpr(Expr e) {
    while (true) {
      if (peek().isOp("|")) {
        i++;
        Token t = peek();
        e = filterNode(e, expectName(), t.line());
      } else if (peek().isName("is")) {
        i++;
        e = parseTest(e);
      } else if (peek().isOp("(")) {
        e = new Node.Call(e, parseCallArgs());
      } else {
        return e;
      }
    }
  }

  private Expr parseTest(Expr e) {
    boolean negated = acceptName("not");
    Token t = peek();
    String name = expectName();
    while (peek().isOp(".")) {
      i++;
      name = name + "." + expectName();
    }
    Node.TestFn fn = builtins.test(name);
    if (fn == null) {
      throw new TemplateError(
          "TemplateAssertionError", "No test named '" + name + "'.", t.line(), false);
    }
    Args args = Args.NONE;
    Token n = peek();
    if (n.isOp("(")) {
      args = parseCallArgs();
    } else if ((n.type() == Type.NAME
            || n.type() == Type.STRING
            || n.type() == Type.INT
            || n.type() == Type.FLOAT
            || n.isOp("[")
            || n.isOp("{"))
        && !n.isName("else")
        && !n.isName("or")
        && !n.isName("and")) {
      Expr arg = parsePostfix(parsePrimary());
      args = new Args(List.of(arg), List.of(), List.of());
    }
    return new Node.Test(e, name, fn, args, negated);
  }
}
