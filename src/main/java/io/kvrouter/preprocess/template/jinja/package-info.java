/**
 * A purpose-built Jinja2 renderer with Python value semantics, for Hugging Face chat templates.
 * Entry point: {@link io.kvrouter.preprocess.template.jinja.JinjaTemplate#parse(String)} once per
 * template, then {@code render(Map)} per request; {@link
 * io.kvrouter.preprocess.template.jinja.TemplateError} for every failure.
 *
 * <p>Pipeline: {@code Lexer} (delimiters, {@code trim_blocks}, {@code lstrip_blocks}, {@code -}/
 * {@code +}, raw, newline normalization, dropping one trailing newline) to {@code Token}s;
 * {@code Parser} (Jinja2's precedence) to an AST of records in {@code Node}, with filters and tests
 * resolved to functions at parse time (an unknown one fails at parse); the nodes evaluate
 * themselves over {@code Frame}s (one per for-loop iteration and macro call, as Jinja2 scopes).
 * Statements return NORMAL/BREAK/CONTINUE instead of throwing for loop control.
 *
 * <p>Values ({@code Py}): {@code null} is None, {@code Undefined} is Jinja2's default undefined
 * (prints "", falsy, iterates empty, fails in arithmetic/attribute/call with Jinja2's message),
 * Long/Double/Boolean/String, List (PyTuple for tuples), Map (insertion-ordered), Namespace,
 * PyCallable (globals, macros, bound methods). Python semantics live in {@code Py} (str/repr,
 * truthiness, ==, ordering, +, arithmetic, in, indexing, slicing), {@code Methods}/{@code
 * StrMethods} (str, dict, list methods; mutating ones raise SecurityError like Jinja2's immutable
 * sandbox), {@code Builtins} (filters with checked signatures, tests, globals), {@code Json}
 * (transformers' tojson = json.dumps) and {@code Strftime}.
 *
 * <p>Rule: where Python's result cannot be reproduced (printf-style {@code %}, format specs,
 * printing a function, integers beyond 64 bits, {@code include}/{@code call}/...), fail with a
 * TemplateError naming the construct and the template line rather than render something else.
 * Pure and synchronous: no Vert.x, no Netty, no reflection; parsed templates are immutable and
 * thread-safe.
 */
package io.kvrouter.preprocess.template.jinja;
