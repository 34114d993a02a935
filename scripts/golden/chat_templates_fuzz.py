#!/usr/bin/env python3
"""Differential fuzz inputs for the Java Jinja renderer: random conversations rendered by Python.

Generates random chat requests (roles incl. developer and tool; content as text, null, absent or
text parts; tool calls with object or string arguments; reasoning_content / thinking; tools;
enable_thinking, reasoning_effort, builtin_tools) and renders each with every model of cases.json,
in exactly the environment of chat_templates.py. Writes a JSON list of
{"model", "idx", "case", "output" | "error"} to OUT (default target/chat-template-fuzz.json).
Compare with the Java renderer:

    python3 scripts/golden/chat_templates_fuzz.py [SEED] [COUNT] [OUT]
    mvn -o -q -DskipTests test-compile exec:java -Dexec.classpathScope=test \
        -Dexec.mainClass=io.kvrouter.jinja.JinjaFuzzCompare \
        -Dexec.args=target/chat-template-fuzz.json

Not a test fixture (megabytes, and random): a tool for finding divergences. Other templates: put
them in model folders (chat_template.jinja + tokenizer_config.json) under $KVROUTER_TEST_MODELS and
name the folders in FUZZ_MODELS=a,b (comma-separated), for both commands.
"""
import datetime
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_templates as ct  # noqa: E402

SEED = int(sys.argv[1]) if len(sys.argv) > 1 else 42
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 400
OUT = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ct.ROOT, "target", "chat-template-fuzz.json")
rnd = random.Random(SEED)
spec = json.load(open(os.path.join(ct.GOLDEN, 'cases.json')))
env = ct.make_environment(datetime.datetime.fromisoformat(spec['strftime_now']))
TOOLS = spec['cases']['tools_request']['tools']
texts = ["Hello", "  spaced \n", "", "<think>\nhmm\n</think>\n\nok", "多语言 🚀", "a\nb\n\nc", "quote ' \" \\ {{ x }} {% y %}", "<tool_response>r</tool_response>"]
def content():
    r = rnd.random()
    if r < 0.7: return rnd.choice(texts)
    if r < 0.8: return None
    if r < 0.9: return [{"type": "text", "text": rnd.choice(texts)}]
    return "MISSING"
def tool_call(i):
    args = rnd.choice([{"city": "Paris", "n": 2, "f": 1.5, "b": True, "z": None}, '{"city": "Paris"}', {}])
    tc = {"id": ("abc%06d" % i)[:9], "type": "function",
          "function": {"name": rnd.choice(["get_weather", "search"]), "arguments": args}}
    return tc
def message(role, i):
    m = {"role": role}
    c = content()
    if c != "MISSING": m["content"] = c
    if role == "assistant":
        if rnd.random() < 0.3: m["tool_calls"] = [tool_call(i * 10 + k) for k in range(rnd.choice([1, 1, 2]))]
        if rnd.random() < 0.2: m["reasoning_content"] = rnd.choice(texts)
        if rnd.random() < 0.1: m["thinking"] = rnd.choice(texts)
    if role == "tool":
        m["tool_call_id"] = ("abc%06d" % i)[:9]
        if rnd.random() < 0.3: m["name"] = "get_weather"
    return m
cases = []
for n in range(COUNT):
    msgs = []
    if rnd.random() < 0.5: msgs.append(message(rnd.choice(["system", "system", "developer"]), 0))
    for i in range(rnd.randint(1, 6)):
        msgs.append(message(rnd.choice(["user", "assistant", "user", "assistant", "tool"]), i + 1))
    case = {"messages": msgs, "add_generation_prompt": rnd.random() < 0.6}
    if rnd.random() < 0.3: case["tools"] = TOOLS
    kw = {}
    if rnd.random() < 0.3: kw["enable_thinking"] = rnd.random() < 0.5
    if rnd.random() < 0.2: kw["reasoning_effort"] = rnd.choice(["low", "medium", "high"])
    if rnd.random() < 0.1: kw["builtin_tools"] = ["browser", "python"]
    if kw: case["chat_template_kwargs"] = kw
    cases.append(case)
out = []
MODELS = os.environ.get("FUZZ_MODELS", ",".join(spec["models"])).split(",")
for model in MODELS:
    models_dir = os.environ.get("KVROUTER_TEST_MODELS") or os.path.expanduser("~/.cache/kvrouter/models")
    template, origin, special = ct.load_model(models_dir, model)
    for idx, case in enumerate(cases):
        source, _ = ct.pick_template(template, case.get("tools"))
        e = {"model": model, "idx": idx, "case": case, "variables": special}
        try:
            e["output"] = ct.render(env, env.from_string(source), case, special)
        except ct.TemplateRaised as ex:
            e["error"] = str(ex)
        except Exception as ex:
            e["error"] = f"{type(ex).__name__}: {ex}"
        out.append(e)
os.makedirs(os.path.dirname(os.path.abspath(OUT)), exist_ok=True)
with open(OUT, "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False)
print(f"chat_templates_fuzz.py: {len(out)} renderings ({sum(1 for e in out if 'error' in e)} errors) into {OUT}")
