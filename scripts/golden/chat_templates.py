#!/usr/bin/env python3
"""Renders the chat-template goldens: what Hugging Face transformers' apply_chat_template produces.

Usage (Python 3 with Jinja2 >= 3.1; transformers itself is not needed):

    scripts/fetch-test-models
    python3 scripts/golden/chat_templates.py [MODELS_DIR]

MODELS_DIR defaults to $KVROUTER_TEST_MODELS, else ~/.cache/kvrouter/models (where
scripts/fetch-test-models puts the real model files). The inputs are
kvrouter-core/src/test/resources/golden/chat-templates/cases.json; the outputs go beside it:

    <model>/<case>.txt         the rendered prompt, exact UTF-8 bytes, no added trailing newline
    <model>/<case>.error.txt   instead, when rendering fails (see "Errors" below)
    sources.json               per model: which template file was used and its SHA-256, and the
                               special-token variables passed

Every run rewrites these files from scratch (stale ones are deleted), and the same inputs give
byte-identical files: nothing depends on the clock, the locale or dict ordering.

What transformers does, and how this script reproduces it
---------------------------------------------------------
The reference is transformers 4.5x: tokenization_utils_base.PreTrainedTokenizerBase
.apply_chat_template, get_chat_template, and utils/chat_template_utils.py
(_compile_jinja_template, render_jinja_template).

1. Which template. A model folder's chat_template.jinja, when there is one, is the template
   (transformers loads it at from_pretrained and it wins over tokenizer_config.json). Otherwise
   tokenizer_config.json's "chat_template": a string is the template; a list of
   {"name", "template"} entries is a set of named templates, of which transformers picks the one
   named by the caller, else "tool_use" when tools are passed and such an entry exists, else
   "default" (and fails when there is no "default"). No model here asks for a name.

2. The Jinja environment (_compile_jinja_template). Jinja2 >= 3.1 is required. The template is
   compiled once in an ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True) with
   the extensions jinja2.ext.loopcontrols ({% break %}, {% continue %}) and transformers' own
   AssistantTracker (the {% generation %} ... {% endgeneration %} block tag, which renders its body
   unchanged and only records character offsets for return_assistant_tokens_mask; it is
   reproduced here as a pass-through tag). Every other setting is Jinja2's default: autoescape
   off, keep_trailing_newline=False (one trailing newline of the template source is dropped),
   Undefined (not StrictUndefined: a missing attribute is an empty, falsy value that fails only
   when it is used in arithmetic, concatenation, iteration of an attribute of it, etc.), and
   Jinja2's own filters, tests and globals (namespace, range, dict, lipsum, joiner, cycler). The
   sandbox refuses unsafe attributes and, being immutable, calls that mutate lists, dicts or sets
   (append, pop, update, ...); Python's non-mutating str/list/dict methods stay callable
   (strip, split, startswith, items, ...). Added on top:
     - filter tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
       json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
       sort_keys=sort_keys). This replaces Jinja2's built-in tojson, which would escape <, >, &
       and ' as \\u003c etc. and return Markup. With separators=None json.dumps separates items with ", " and keys
       with ": " on one line, or with "," (at line ends) and ": " when indent is given; non-ASCII
       stays as is (ensure_ascii=False), and keys keep the order they were given in.
     - global raise_exception(message): raises jinja2.exceptions.TemplateError(message).
     - global strftime_now(format): datetime.now().strftime(format), the local time. Here it is
       the fixed datetime in cases.json ("strftime_now", a naive local time) so goldens do not
       change with the date; strftime runs in Python's default C locale (English month and day
       names).

3. The variables (render_jinja_template and apply_chat_template). The template is rendered with
       messages=<the conversation, a list of dicts exactly as given: content may be a string,
                 null or a list of parts; tool_calls, reasoning_content, thinking, tool_call_id,
                 ... are passed through untouched>,
       tools=<the tool schemas, or None when no tools were given: the variable is then *defined*
              and none, not undefined>,
       documents=<the documents, or None>,
       add_generation_prompt=<bool>,
   plus, spread as further variables, the tokenizer's special_tokens_map: bos_token, eos_token,
   unk_token, sep_token, pad_token, cls_token, mask_token for those that are set (the string form;
   tokenizer_config.json may hold a string or an AddedToken dict {"content": ...}; a token that
   is null is left out, so the template sees it undefined) and additional_special_tokens (a list
   of strings) when set. Then the caller's extra keyword arguments are spread on top (they win
   over special tokens of the same name): this is how an OpenAI server passes the request's
   chat_template_kwargs (enable_thinking, reasoning_effort, ...). Tool schemas given as dicts are
   passed as they are (transformers converts Python callables to JSON schema; not used here).
   A tokenizer class may have defaults for special tokens that tokenizer_config.json does not
   name; none of the models used here relies on one (each either names a token or sets it null).

4. The result is the rendered string, unchanged (no strip). continue_final_message (which cuts the
   prompt after the last message's content) is not exercised by these cases; chat_requests.py
   covers it, with vLLM's shaping of a request's messages in front of this rendering.

Errors
------
A case that the template rejects through raise_exception(...) writes <case>.error.txt holding
exactly the message. Any other failure while rendering (a jinja2 UndefinedError, a Python
TypeError such as concatenating str and dict, ...) is what transformers would raise too; it writes
"<ExceptionType>: <message>" to <case>.error.txt.

Cases
-----
cases.json lists the models, the fixed strftime_now time and the cases. Each case has messages,
add_generation_prompt and optionally tools, documents, chat_template_kwargs, and "models" (the
case applies only to these, e.g. content parts only for templates that read them).
"""
import datetime
import hashlib
import json
import os
import sys

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "kvrouter-core", "src", "test", "resources", "golden", "chat-templates")
SPECIAL_TOKENS = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
                  "mask_token")


class TemplateRaised(jinja2.exceptions.TemplateError):
    """What raise_exception raises (a TemplateError, as in transformers), told apart for the golden."""


class GenerationTag(jinja2.ext.Extension):
    """transformers' AssistantTracker as rendering sees it: {% generation %}body{% endgeneration %}
    renders body unchanged (the offsets it records only matter for assistant token masks)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


def make_environment(now):
    if tuple(int(p) for p in jinja2.__version__.split(".")[:2]) < (3, 1):
        sys.exit("chat_templates.py: Jinja2 >= 3.1 is required (transformers requires it too)")

    def raise_exception(message):
        raise TemplateRaised(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                          sort_keys=sort_keys)

    def strftime_now(format):
        return now.strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def token_text(value):
    """A special token from tokenizer_config.json: a string, an AddedToken dict, or null."""
    if isinstance(value, dict):
        return value.get("content")
    return value


def load_model(models_dir, name):
    """Returns (template source or {name: source}, template origin, special-token variables)."""
    folder = os.path.join(models_dir, name)
    with open(os.path.join(folder, "tokenizer_config.json"), encoding="utf-8") as f:
        config = json.load(f)
    jinja_file = os.path.join(folder, "chat_template.jinja")
    if os.path.isfile(jinja_file):
        with open(jinja_file, encoding="utf-8", newline="") as f:
            template, origin = f.read(), "chat_template.jinja"
    else:
        template, origin = config.get("chat_template"), "tokenizer_config.json"
        if isinstance(template, list):
            template = {t["name"]: t["template"] for t in template}
        if not template:
            sys.exit(f"chat_templates.py: {folder} has no chat template")
    special = {}
    for key in SPECIAL_TOKENS:
        text = token_text(config.get(key))
        if text is not None:
            special[key] = text
    extra = config.get("additional_special_tokens")
    if extra:
        special["additional_special_tokens"] = [token_text(t) for t in extra]
    return template, origin, special


def pick_template(template, tools):
    """transformers' get_chat_template for a template string or a dict of named templates."""
    if isinstance(template, str):
        return template, None
    if tools is not None and "tool_use" in template:
        return template["tool_use"], "tool_use"
    if "default" in template:
        return template["default"], "default"
    raise ValueError("no 'default' among the named chat templates: " + ", ".join(template))


def render(env, compiled, case, special):
    variables = dict(messages=case["messages"], tools=case.get("tools"),
                     documents=case.get("documents"),
                     add_generation_prompt=case["add_generation_prompt"])
    variables.update(special)
    variables.update(case.get("chat_template_kwargs", {}))
    return compiled.render(**variables)


def sha256(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "KVROUTER_TEST_MODELS") or os.path.expanduser("~/.cache/kvrouter/models")
    with open(os.path.join(GOLDEN, "cases.json"), encoding="utf-8") as f:
        spec = json.load(f)
    env = make_environment(datetime.datetime.fromisoformat(spec["strftime_now"]))

    sources = {}
    written = 0
    for model in spec["models"]:
        template, origin, special = load_model(models_dir, model)
        compiled_cache = {}
        outputs = {}
        for name, case in spec["cases"].items():
            if "models" in case and model not in case["models"]:
                continue
            source, variant = pick_template(template, case.get("tools"))
            if source not in compiled_cache:
                compiled_cache[source] = env.from_string(source)
            try:
                outputs[name + ".txt"] = render(env, compiled_cache[source], case, special)
            except TemplateRaised as e:
                outputs[name + ".error.txt"] = str(e)
            except Exception as e:  # what transformers would raise as well
                outputs[name + ".error.txt"] = f"{type(e).__name__}: {e}"
        out_dir = os.path.join(GOLDEN, model)
        os.makedirs(out_dir, exist_ok=True)
        for old in os.listdir(out_dir):
            if old.endswith(".txt") and old not in outputs:
                os.remove(os.path.join(out_dir, old))
        for file_name, text in outputs.items():
            with open(os.path.join(out_dir, file_name), "w", encoding="utf-8", newline="") as f:
                f.write(text)
            written += 1
        if isinstance(template, str):
            info = {"template": origin, "sha256": sha256(template)}
        else:
            info = {"template": origin, "named": {k: sha256(v) for k, v in template.items()}}
        info["variables"] = special
        sources[model] = info
    with open(os.path.join(GOLDEN, "sources.json"), "w", encoding="utf-8", newline="") as f:
        f.write(json.dumps(sources, ensure_ascii=False, indent=2) + "\n")
    print(f"chat_templates.py: wrote {written} goldens for {len(spec['models'])} models into "
          f"{os.path.relpath(GOLDEN, ROOT)}")


if __name__ == "__main__":
    main()
