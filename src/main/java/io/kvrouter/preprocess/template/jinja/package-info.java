/**
 * A purpose-built Jinja2 renderer with Python value semantics for Hugging Face chat templates:
 * {@link io.kvrouter.preprocess.template.jinja.JinjaTemplate#parse(String)} once, then
 * {@code render(Map)} many times. Lexer (delimiters, trim_blocks, lstrip_blocks, whitespace
 * control) to tokens, Parser to an AST of records ({@code Node}), evaluated directly by the nodes
 * over Python-like values ({@code Py}: None vs Undefined, str(), truthiness, int vs float).
 * Pure and synchronous: no Vert.x, no Netty, no reflection.
 */
package io.kvrouter.preprocess.template.jinja;
