#!/usr/bin/env python3
"""Renders the chat-request goldens: the prompt vLLM's OpenAI server builds from a chat request.

Usage (Python 3 with Jinja2 >= 3.1; neither vLLM nor transformers is needed):

    scripts/fetch-test-models
    python3 scripts/golden/chat_requests.py [MODELS_DIR]

Where chat_templates.py gives a template the messages exactly as written, this script starts from
an OpenAI chat request body and shapes it the way vLLM's server does before transformers renders
it, so the goldens pin the router's own request shaping (frontend/openai and JinjaChatTemplate)
and not only its Jinja interpreter. Inputs: kvrouter-core/src/test/resources/golden/chat-requests/
cases.json (each case a "request": messages, tools, add_generation_prompt, continue_final_message,
chat_template_kwargs; optionally "models"). Outputs beside it, rewritten from scratch each run:

    <model>/<case>.txt         the prompt, exact UTF-8 bytes
    <model>/<case>.error.txt   instead, when vLLM would fail the request (see chat_templates.py for
                               the form of template errors; a continue_final_message failure is
                               "ValueError: <transformers' message>")
    content-formats.json       per model, the content format vLLM detects ("string" or "openai")

The environment, the template choice and the variables (special tokens from tokenizer_config.json,
tools, documents=None, add_generation_prompt, chat_template_kwargs spread) are chat_templates.py's.
What is added, with the vLLM and transformers sources it follows:

1. Content format (vllm/renderers/hf.py at e7ad92e5308e67c9657fc06f351ff4326848f130): "openai" when
   the template loops over a message's content, else "string"; the rule is content_formats.py's.

2. The request model (vllm/entrypoints/openai/engine/protocol.py at
   040a2cc2a6295ea9c313d86526ff90a103eacb3e, validated by pydantic 2): a tool becomes
   {"type", "function": {"name", "description", "parameters", <other fields in request order>}},
   absent description/parameters as None (FunctionDefinition allows extra fields and model_dump puts
   them after the declared ones). A message's tool calls come out of OpenAI's TypedDicts with their
   keys in declaration order: {"id", "function": {"arguments", "name"}, "type"}.

3. Message shaping (vllm/entrypoints/chat_utils.py at 001eadcf295d90aa0664963cd6a9d93f38a2f3da,
   _parse_chat_message_content and _postprocess_messages): each message becomes {"role", "content"}
   with the content's text parts joined by "\n" ("string"; None is "") or as [{"type": "text",
   "text"}] parts ("openai"; None is []); a tool message's parts are joined into one string in
   either format; then, in this order, an assistant's tool_calls (when not None) and reasoning
   (as "reasoning" and "reasoning_content", read from the request's "reasoning" only), a tool
   message's tool_call_id, a string name, and for a developer message "tools" (None here). Then
   empty tool_calls are dropped and each call's string arguments are parsed with json.loads, an
   empty dict where that raises JSONDecodeError.

4. continue_final_message (transformers 4.5x, render_jinja_template): the render is cut after the
   last occurrence of the final message's content, stripped; its trailing whitespace is kept only
   when the template kept it. For list content the last text block is the final message (none:
   ValueError). An empty content is found at the end of the render, which is then kept whole.
"""
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chat_templates as ct  # noqa: E402
import content_formats  # noqa: E402

GOLDEN = os.path.join(ct.ROOT, "kvrouter-core", "src", "test", "resources", "golden",
                      "chat-requests")


class ContinuationError(ValueError):
    """transformers' ValueError for a final message it cannot continue."""


def validated_tool(tool):
    function = tool["function"]
    declared = {"name": function["name"], "description": function.get("description"),
                "parameters": function.get("parameters")}
    declared.update((k, v) for k, v in function.items() if k not in declared)
    return {"type": tool.get("type", "function"), "function": declared}


def validated_tool_call(call):
    function = call["function"]
    ordered_function = {"arguments": function["arguments"], "name": function["name"]}
    return {"id": call["id"], "function": ordered_function, "type": call["type"]}


def texts(content):
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    return [part["text"] for part in content if part.get("type") == "text"]


def shaped_message(message, content_format):
    role = message["role"]
    parts = texts(message.get("content"))
    if content_format == "openai" and role != "tool":
        content = [{"type": "text", "text": t} for t in parts]
    else:
        content = "\n".join(parts)
    out = {"role": role, "content": content}
    if role == "assistant":
        if message.get("tool_calls") is not None:
            out["tool_calls"] = [validated_tool_call(c) for c in message["tool_calls"]]
        if message.get("reasoning") is not None:
            out["reasoning"] = message["reasoning"]
            out["reasoning_content"] = message["reasoning"]
    elif role == "tool" and "tool_call_id" in message:
        out["tool_call_id"] = message["tool_call_id"]
    if isinstance(message.get("name"), str):
        out["name"] = message["name"]
    if role == "developer":
        out["tools"] = message.get("tools")
    return out


def postprocess(conversation):
    for message in conversation:
        if message["role"] != "assistant" or "tool_calls" not in message:
            continue
        if not message["tool_calls"]:
            del message["tool_calls"]
            continue
        for call in message["tool_calls"]:
            arguments = call["function"].get("arguments")
            if isinstance(arguments, str):
                try:
                    call["function"]["arguments"] = json.loads(arguments)
                except json.JSONDecodeError:
                    call["function"]["arguments"] = {}
            elif not isinstance(arguments, (dict, list)):
                call["function"]["arguments"] = {}


def continue_final(rendered, final_content):
    final = final_content
    if isinstance(final, (list, tuple)):
        for block in reversed(final):
            if "text" in block:
                final = block["text"]
                break
        else:
            raise ContinuationError("continue_final_message is set but we could not find any text "
                                    "to continuein the final message!")
    if final.strip() not in rendered:
        raise ContinuationError(
            "continue_final_message is set but the final message does not appear in the chat "
            "after applying the chat template! This can happen if the chat template deletes "
            "portions of the final message. Please verify the chat template and final message in "
            "your chat to ensure they are compatible.")
    at = rendered.rindex(final.strip())
    if rendered[at:at + len(final.lstrip())] == final:
        return rendered[:at + len(final.lstrip())]
    return rendered[:at + len(final.strip())]


def render(env, compiled, content_format, request, special):
    conversation = [shaped_message(m, content_format) for m in request["messages"]]
    postprocess(conversation)
    tools = request.get("tools")
    continuing = request.get("continue_final_message", False)
    case = {"messages": conversation,
            "tools": None if tools is None else [validated_tool(t) for t in tools],
            "add_generation_prompt": request.get("add_generation_prompt", True),
            "chat_template_kwargs": request.get("chat_template_kwargs", {})}
    rendered = ct.render(env, compiled, case, special)
    if continuing:
        rendered = continue_final(rendered, conversation[-1]["content"])
    return rendered


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "KVROUTER_TEST_MODELS") or os.path.expanduser("~/.cache/kvrouter/models")
    with open(os.path.join(GOLDEN, "cases.json"), encoding="utf-8") as f:
        spec = json.load(f)
    env = ct.make_environment(datetime.datetime.fromisoformat(spec["strftime_now"]))
    formats = {}
    written = 0
    for model in spec["models"]:
        template, _, special = ct.load_model(models_dir, model)
        formats[model] = content_formats.content_format(env, ct.pick_template(template, None)[0])
        compiled = {}
        outputs = {}
        for name, case in spec["cases"].items():
            if "models" in case and model not in case["models"]:
                continue
            request = case["request"]
            source, _ = ct.pick_template(template, request.get("tools"))
            if source not in compiled:
                compiled[source] = (env.from_string(source),
                                    content_formats.content_format(env, source))
            try:
                outputs[name + ".txt"] = render(env, *compiled[source], request, special)
            except ContinuationError as e:
                outputs[name + ".error.txt"] = f"ValueError: {e}"
            except ct.TemplateRaised as e:
                outputs[name + ".error.txt"] = str(e)
            except Exception as e:  # what vLLM would answer with an error too
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
    with open(os.path.join(GOLDEN, "content-formats.json"), "w", encoding="utf-8",
              newline="") as f:
        f.write(json.dumps(formats, indent=2) + "\n")
    print(f"chat_requests.py: wrote {written} goldens for {len(spec['models'])} models into "
          f"{os.path.relpath(GOLDEN, ct.ROOT)}")


if __name__ == "__main__":
    main()
