#!/usr/bin/env python3
"""Renders the golden chat-template outputs that JinjaChatTemplateTest compares against.

It renders every case in cases.json with each model's chat_template the way Hugging Face
transformers does (apply_chat_template): ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True) with the loopcontrols extension, a `tojson` filter using
json.dumps(ensure_ascii=False), a `raise_exception` global, and the tokenizer's bos_token and
eos_token (when set) as variables.

Usage (python3 with Jinja2 3.1.x):
    scripts/fetch-test-models
    python3 src/test/resources/golden/templates/render_goldens.py [MODELS_DIR]
MODELS_DIR defaults to $KVROUTER_TEST_MODELS or ~/.cache/kvrouter/models. Outputs are written to
<this folder>/<model>/<case>.txt (exact bytes, UTF-8, no added newline); a case the template
refuses to render is written to <case>.error.txt instead.
"""
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = ["llama3", "qwen3"]


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def token_text(value):
    if isinstance(value, dict):
        return value.get("content")
    return value


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "KVROUTER_TEST_MODELS", os.path.expanduser("~/.cache/kvrouter/models"))
    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    for model in MODELS:
        with open(os.path.join(models_dir, model, "tokenizer_config.json"), encoding="utf-8") as f:
            config = json.load(f)
        template = env.from_string(config["chat_template"])
        special = {}
        for key in ("bos_token", "eos_token"):
            text = token_text(config.get(key))
            if text is not None:
                special[key] = text
        out_dir = os.path.join(HERE, model)
        os.makedirs(out_dir, exist_ok=True)
        for name, case in cases.items():
            try:
                text = template.render(messages=case["messages"],
                                       **case.get("variables", {}),
                                       add_generation_prompt=case["add_generation_prompt"],
                                       **special)
                path = os.path.join(out_dir, name + ".txt")
            except jinja2.exceptions.TemplateError as e:
                text = str(e)
                path = os.path.join(out_dir, name + ".error.txt")
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
            print(path)


if __name__ == "__main__":
    main()
