#!/usr/bin/env python3
"""Which chat templates vLLM hands OpenAI content parts: the goldens of its automatic content format.

vLLM (vllm/renderers/hf.py, _detect_content_format, read at e7ad92e5308e67c9657fc06f351ff4326848f130)
parses the chat template with Jinja2 and calls the format "openai" when a {% for %} loop iterates a
message's content, else "string". This script reimplements that rule over Jinja2's own syntax tree
(the tree vLLM walks), in the environment chat_templates.py builds, and writes

    kvrouter-jinja/src/test/resources/golden/content-formats.json

a list of {"template", "format"} for the SNIPPETS below, each probing one part of the rule. The
format of each real model's template is written by chat_requests.py (content-formats.json in the
chat-request goldens). Usage: python3 scripts/golden/content_formats.py

The rule, as vLLM applies it:
  1. Conversation names: "messages", then every {% set NAME = VALUE %} whose VALUE is a conversation
     name, followed breadth-first. VALUE counts when it is the name (a load), or the name behind a
     filter, a test or a slice (x[1:]); not behind an index (x[0]) or any other expression. A
     matching set whose target is not one plain name (a tuple, a namespace attribute) stops vLLM on
     an assertion: it then falls back to "string".
  2. Message names: the target of every {% for %} loop whose iterable is a conversation name in the
     same sense (a loop with several targets: the same assertion, "string").
  3. "openai" when some {% for %} loop iterates NAME.content or NAME['content'] of a message name,
     again through filters, tests or a slice; the first such loop (document order, Jinja2's
     find_all) must have one target, else "string".
Scopes are not followed: every set and loop anywhere in the template counts. {% set %}...{% endset %}
blocks are not assignments here (Jinja2 parses them as AssignBlock).
"""
import collections
import datetime
import json
import os
import sys

import jinja2.nodes as nodes

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_templates  # noqa: E402

OUT = os.path.join(chat_templates.ROOT, "kvrouter-jinja", "src", "test", "resources", "golden",
                   "content-formats.json")


class Unresolved(Exception):
    """Where vLLM's search fails an assertion (and returns its default, "string")."""


def reaches(node, name, key=None):
    """NAME (or NAME.key / NAME['key']) behind any filters, tests and slices."""
    if isinstance(node, (nodes.Filter, nodes.Test)):
        return node.node is not None and reaches(node.node, name, key)
    if isinstance(node, nodes.Getitem) and isinstance(node.arg, nodes.Slice):
        return reaches(node.node, name, key)
    if key is None:
        return isinstance(node, nodes.Name) and node.ctx == "load" and node.name == name
    if isinstance(node, nodes.Getattr):
        return node.attr == key and reaches_plain(node.node, name)
    if isinstance(node, nodes.Getitem):
        return (isinstance(node.arg, nodes.Const) and node.arg.value == key
                and reaches_plain(node.node, name))
    return False


def reaches_plain(node, name):
    return isinstance(node, nodes.Name) and node.ctx == "load" and node.name == name


def single_target(target):
    if not isinstance(target, nodes.Name):
        raise Unresolved()
    return target.name


def conversation_names(tree):
    names = ["messages"]
    pending = collections.deque(names)
    while pending:
        current = pending.popleft()
        for assign in tree.find_all(nodes.Assign):
            if reaches(assign.node, current):
                target = single_target(assign.target)
                if target not in names:
                    names.append(target)
                    pending.append(target)
    return names


def message_names(tree, conversations):
    names = []
    for loop in tree.find_all(nodes.For):
        if any(reaches(loop.iter, c) for c in conversations):
            names.append(single_target(loop.target))
    return names


def content_format(env, source):
    """"openai" or "string", as vLLM detects it for this template source."""
    tree = env.parse(source)
    try:
        messages = message_names(tree, conversation_names(tree))
        for loop in tree.find_all(nodes.For):
            if any(reaches(loop.iter, m, "content") for m in messages):
                single_target(loop.target)
                return "openai"
    except Unresolved:
        return "string"
    return "string"


LOOP = "{% for m in messages %}"
END = "{% endfor %}"

SNIPPETS = [
    # loops over a message's content, read directly
    LOOP + "{% for p in m['content'] %}{{ p.text }}{% endfor %}" + END,
    LOOP + "{% for p in m.content %}{{ p }}{% endfor %}" + END,
    LOOP + "{% for p in m.content|selectattr('type', 'equalto', 'text') %}{{ p }}{% endfor %}" + END,
    LOOP + "{% for p in m['content'][1:] %}{{ p }}{% endfor %}" + END,
    LOOP + "{% for p in m.content if p.type == 'text' %}{{ p }}{% endfor %}" + END,
    LOOP + "{% if m.content is string %}{{ m.content }}{% else %}"
           "{% for p in m.content %}{{ p.text }}{% endfor %}{% endif %}" + END,
    # the conversation under other names
    "{% set loop_messages = messages[1:] %}{% for m in loop_messages %}"
    "{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% set a = messages|reverse %}{% set b = a %}{% for m in b %}"
    "{% for p in m['content'] %}{% endfor %}{% endfor %}",
    "{% for m in messages|selectattr('role', 'equalto', 'user') %}"
    "{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% for m in messages[:-1] %}{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% for p in m.content %}{% endfor %}{% for m in messages %}{% endfor %}",
    "{% macro show(m) %}{% for p in m.content %}{% endfor %}{% endmacro %}" + LOOP + END,
    # what the rule does not follow
    LOOP + "{% set tool_calls = m.content %}{% for c in tool_calls %}{% endfor %}" + END,
    LOOP + "{{ m['content'] }}" + END,
    LOOP + "{% for c in m['contents'] %}{% endfor %}" + END,
    LOOP + "{% for c in m.content.parts %}{% endfor %}" + END,
    LOOP + "{% for c in m.content[0] %}{% endfor %}" + END,
    LOOP + "{% for c in (m.content or []) %}{% endfor %}" + END,
    "{% set m = messages[0] %}{% for p in m.content %}{% endfor %}",
    "{% for p in messages[0].content %}{% endfor %}",
    "{% set c = messages[0].content %}{% for p in c %}{% endfor %}",
    "{% for m in conversation %}{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% for p in content %}{{ p }}{% endfor %}",
    "{% set msgs = messages if true else [] %}{% for m in msgs %}"
    "{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% for m in messages is not none %}{% for p in m.content %}{% endfor %}{% endfor %}",
    "{% set x %}{{ messages }}{% endset %}{% for m in x %}{% for p in m.content %}{% endfor %}"
    "{% endfor %}",
    # where vLLM's search stops on an assertion and falls back to "string"
    "{% set ns = namespace(m=none) %}{% set ns.m = messages %}" + LOOP
    + "{% for p in m.content %}{% endfor %}" + END,
    "{% set a, b = messages %}" + LOOP + "{% for p in m.content %}{% endfor %}" + END,
    "{% for i, m in messages %}{% endfor %}" + LOOP + "{% for p in m.content %}{% endfor %}" + END,
    LOOP + "{% for k, v in m.content %}{% endfor %}{% for p in m.content %}{% endfor %}" + END,
    LOOP + "{% for p in m.content %}{% endfor %}{% for k, v in m.content %}{% endfor %}" + END,
]


def main():
    env = chat_templates.make_environment(datetime.datetime(2025, 3, 14, 15, 9, 26))
    out = [{"template": s, "format": content_format(env, s)} for s in SNIPPETS]
    with open(OUT, "w", encoding="utf-8", newline="") as f:
        f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"content_formats.py: wrote {len(out)} cases into "
          f"{os.path.relpath(OUT, chat_templates.ROOT)}")


if __name__ == "__main__":
    main()
