/**
 * A purpose-built Jinja2 renderer with Python value semantics, for Hugging Face chat templates.
 * Entry point: {@link io.kvrouter.jinja.JinjaTemplate#parse(String)} once per template, then {@code
 * render(Map)} per request; {@link io.kvrouter.jinja.TemplateError} for every failure, Java
 * exceptions the renderer did not expect included ({@code InternalError}).
 *
 * <p>Pipeline: {@code Lexer} (delimiters, {@code trim_blocks}, {@code lstrip_blocks}, {@code -}/
 * {@code +}, raw, newline normalization, dropping one trailing newline) to {@code Token}s; {@code
 * Parser} (Jinja2's precedence) to an AST of records in {@code Node}, with filters and tests
 * resolved to functions at parse time (an unknown one fails at parse); the nodes evaluate
 * themselves over {@code Frame}s (one per for-loop iteration and macro call, as Jinja2 scopes).
 * Statements return NORMAL/BREAK/CONTINUE instead of throwing for loop control.
 *
 * <p>Values ({@code Py}): {@code null} is None, {@code Undefined} is Jinja2's default undefined
 * (prints "", falsy, iterates empty, fails in arithmetic/attribute/call with Jinja2's message),
 * Long (BigInteger beyond 64 bits: {@code PyInt}), Double, Boolean, String, List (PyTuple for
 * tuples, PyRange for range(), DictView for dict.items()/keys()/values()), Map (insertion-ordered,
 * Python's key equality: DictKeys), Markup (what the escaping filters return), PyIterator (the
 * generators of map, select, ...), Namespace, PyCallable (globals, macros, bound methods). Python
 * semantics live in {@code Py} (str/repr, truthiness, ==, ordering, +, arithmetic, in, indexing,
 * slicing), {@code Printf} ({@code %} formatting), {@code Methods}/{@code StrMethods} (str, dict,
 * list methods; mutating ones raise SecurityError like Jinja2's immutable sandbox), {@code
 * Builtins} (filters with checked signatures), {@code Tests}, {@code Globals}, {@code Round},
 * {@code Conversions}, {@code Json} (transformers' tojson = json.dumps), {@code Strftime} and
 * {@code Macro}.
 *
 * <p>{@code Limits}: nesting at parse, recursion and data depth at render and the length of every
 * string or list built are bounded, so a hostile template or request fails with a TemplateError
 * naming the limit (RecursionError, MemoryError) instead of overflowing the stack or the heap.
 *
 * <p>Rule: where Python's result cannot be reproduced (str.format specs, printing a function or a
 * generator, the identity of equal strings for {@code sameas}, most uses of Markup, {@code
 * include}/{@code import}/{@code extends}/..., Jinja2's less common filters), fail with a
 * TemplateError naming the construct and the template line rather than render something else. Pure
 * and synchronous: no Vert.x, no Netty, no reflection; parsed templates are immutable and
 * thread-safe.
 */
package io.kvrouter.jinja;
