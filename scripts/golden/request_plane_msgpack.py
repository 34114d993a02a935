#!/usr/bin/env python3
"""Writes the golden msgpack request-plane fixtures into
kvrouter-core/src/test/resources/golden/request-plane/.

Dynamo's request plane with payload_codec "msgpack" (docs/interop.md sections 10.8 and 10.9):
the RequestControlMessage stays JSON (the worker reads it with serde_json to learn the codec),
the request body and every response item are rmp_serde::to_vec_named of the Rust value. The bytes
are laid out token by token from the serde rules below with a tiny hand-written emitter and no
msgpack library, so they are independent of the Java codec under test:

  struct           map (fixmap 0x8N) of its serialized fields, string keys, declaration order;
                   fields with skip_serializing_if that are skipped are not counted
  Option<T>        None -> nil 0xc0, Some(v) -> v
  Vec<T>           array (fixarray 0x9N)
  u8/u32/u64       smallest unsigned form (fixint, 0xcc, 0xcd, 0xce, 0xcf)
  i32/i64          negative -> smallest signed form (0xe0-0xff, 0xd0..0xd3); else as unsigned
  f32              0xca + IEEE 754 single, big-endian;  f64: 0xcb + double
  bool             0xc2 / 0xc3
  String           fixstr 0xa0+len (<32 bytes), str8 0xd9 len (<256)
  unit variant     its (renamed) name as a string

The request's fields and their types are Dynamo's PreprocessedRequest and nested options
(lib/llm/src/protocols/common/preprocessor.rs @000a36a7, lib/llm/src/protocols/common.rs
@0ab24416; the field table is docs/interop.md section 10.4). The response items are
NetworkStreamWrapper<Annotated<LLMEngineOutput>> (data skipped when None, complete_final always;
lib/runtime/src/pipeline/network.rs), with LLMEngineOutput from
lib/llm/src/protocols/common/llm_backend.rs @07d14345.

Run from anywhere:  python3 scripts/golden/request_plane_msgpack.py
"""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kvrouter-core",
                   "src", "test", "resources", "golden", "request-plane")


def tok(data, comment):
    return [(bytes(data), comment)]


def uint(v, comment=""):
    if v < 0x80:
        data = [v]
    elif v < 0x100:
        data = [0xCC, v]
    elif v < 0x10000:
        data = [0xCD] + list(v.to_bytes(2, "big"))
    elif v < 0x100000000:
        data = [0xCE] + list(v.to_bytes(4, "big"))
    else:
        data = [0xCF] + list(v.to_bytes(8, "big"))
    return tok(data, comment or "uint %d" % v)


def sint(v, comment=""):
    if v >= 0:
        return uint(v, comment)
    if v >= -32:
        data = [v & 0xFF]
    elif v >= -128:
        data = [0xD0, v & 0xFF]
    elif v >= -32768:
        data = [0xD1] + list((v & 0xFFFF).to_bytes(2, "big"))
    elif v >= -(1 << 31):
        data = [0xD2] + list((v & 0xFFFFFFFF).to_bytes(4, "big"))
    else:
        data = [0xD3] + list((v & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "big"))
    return tok(data, comment or "int %d" % v)


def f32(v):
    return tok([0xCA] + list(struct.pack(">f", v)), "f32 %r" % v)


def f64(v):
    return tok([0xCB] + list(struct.pack(">d", v)), "f64 %r" % v)


def boolean(v):
    return tok([0xC3 if v else 0xC2], "true" if v else "false")


def nil():
    return tok([0xC0], "nil (None)")


def string(s):
    b = s.encode("utf-8")
    if len(b) < 32:
        head = [0xA0 | len(b)]
    else:
        assert len(b) < 256
        head = [0xD9, len(b)]
    return tok(head + list(b), "str %s" % json.dumps(s))


def array(items, comment="array"):
    assert len(items) < 16
    out = tok([0x90 | len(items)], "%s of %d" % (comment, len(items)))
    for item in items:
        out += item
    return out


def mapping(entries, comment="map"):
    assert len(entries) < 16
    out = tok([0x80 | len(entries)], "%s of %d fields" % (comment, len(entries)))
    for key, value in entries:
        out += string(key)
        out += value
    return out


def data(tokens):
    return b"".join(t[0] for t in tokens)


# ---- the request: PreprocessedRequest, a chat request with sampling options set ----

def request():
    stop_conditions = mapping([
        ("max_tokens", uint(4, "u32 4")),             # Option<u32>
        ("stop", nil()),                               # Option<Vec<String>>
        ("stop_token_ids", array([uint(7, "u32 7")])),
        ("stop_token_ids_hidden", nil()),
        ("min_tokens", nil()),
        ("ignore_eos", boolean(False)),                # Option<bool>
        ("max_thinking_tokens", nil()),
    ], "StopConditions")
    sampling_options = mapping([
        ("n", nil()),                                  # Option<u8>
        ("best_of", nil()),
        ("presence_penalty", f32(1.5)),                # Option<f32>
        ("frequency_penalty", nil()),
        ("repetition_penalty", nil()),
        ("temperature", f32(0.5)),
        ("top_p", f32(0.25)),
        ("top_k", sint(-1, "i32 -1")),                 # Option<i32>
        ("min_p", nil()),
        ("use_beam_search", nil()),
        ("length_penalty", nil()),
        ("seed", sint(1234, "i64 1234")),              # Option<i64>
        ("include_stop_str_in_output", nil()),
        ("guided_decoding", nil()),
    ], "SamplingOptions")
    output_options = mapping([
        ("logprobs", uint(2, "u32 2")),
        ("prompt_logprobs", nil()),
        ("skip_special_tokens", boolean(True)),
        ("formatted_prompt", nil()),
        ("return_tokens_as_token_ids", nil()),
    ], "OutputOptions")
    return mapping([
        ("model", string("mock-model")),
        ("token_ids", array([uint(1), uint(2), uint(300)])),
        ("stop_conditions", stop_conditions),
        ("sampling_options", sampling_options),
        ("output_options", output_options),
        ("eos_token_ids", array([uint(2)])),
        ("mdc_sum", nil()),
        ("annotations", array([])),
        ("routing", mapping([("dp_rank", uint(1, "u32 1"))], "RoutingHints")),
        ("router_config_override", nil()),
    ], "PreprocessedRequest")


CONTROL = ('{"id":"req-42","request_type":"single_in","response_type":"many_out",'
           '"payload_codec":"msgpack","connection_info":{"transport":"tcp_server","info":'
           '"{\\"address\\":\\"127.0.0.1:40001\\",\\"subject\\":\\"subj-7\\",'
           '\\"context\\":\\"req-42\\",\\"stream_type\\":\\"response\\"}"}}')


def data_item():
    # NetworkStreamWrapper { data: Some(Annotated { data: Some(LLMEngineOutput) }) }
    output = mapping([("token_ids", array([uint(11), uint(12)]))], "LLMEngineOutput")
    annotated = mapping([("data", output)], "Annotated")
    return mapping([("data", annotated), ("complete_final", boolean(False))],
                   "NetworkStreamWrapper")


def finished_item():
    # a Python engine's dict (vLLM's handler), keys in the order it builds them; the frontend reads
    # the fields by name, in any order
    output = mapping([
        ("token_ids", array([uint(13)])),
        ("finish_reason", string("length")),           # FinishReason::Length, unit variant
        ("log_probs", array([f64(-0.5)])),             # Option<Vec<f64>>
    ], "LLMEngineOutput")
    annotated = mapping([("data", output)], "Annotated")
    return mapping([("data", annotated), ("complete_final", boolean(False))],
                   "NetworkStreamWrapper")


def rust_item():
    # A Rust engine's LLMEngineOutput: every field without skip_serializing_if is written, nil
    # when None (llm_backend.rs @07d14345), output_type a unit variant renamed lowercase
    output = mapping([
        ("token_ids", array([uint(11)])),
        ("tokens", nil()),
        ("text", nil()),
        ("output_type", string("text")),
        ("cum_log_probs", nil()),
        ("log_probs", nil()),
        ("top_logprobs", nil()),
        ("finish_reason", nil()),
        ("index", nil()),
    ], "LLMEngineOutput (Rust)")
    annotated = mapping([("data", output)], "Annotated")
    return mapping([("data", annotated), ("complete_final", boolean(False))],
                   "NetworkStreamWrapper")


def complete_final():
    return mapping([("complete_final", boolean(True))], "NetworkStreamWrapper, data None skipped")


def write(name, title, tokens):
    lines = ["# " + line for line in title.splitlines()]
    for raw, comment in tokens:
        lines.append("%s  # %s" % (" ".join("%02x" % b for b in raw), comment))
    with open(os.path.join(OUT, name), "w") as f:
        f.write("\n".join(lines) + "\n")


def hex_block(raw, width=16):
    return [" ".join("%02x" % b for b in raw[i:i + width]) for i in range(0, len(raw), width)]


def main():
    os.makedirs(OUT, exist_ok=True)
    body = request()
    write("msgpack_request_body.hex",
          "PreprocessedRequest, rmp_serde::to_vec_named (payload_codec msgpack)", body)
    header = CONTROL.encode("utf-8")
    payload = data(body)
    lines = [
        "# The NATS request payload (and the TCP request frame's payload): TwoPart envelope of a",
        "# msgpack request. Three big-endian u64 (header length, body length, checksum 0), the",
        "# RequestControlMessage as JSON, then the body as in msgpack_request_body.hex.",
        "# u64 header length = %d" % len(header),
        " ".join("%02x" % b for b in len(header).to_bytes(8, "big")),
        "# u64 body length = %d" % len(payload),
        " ".join("%02x" % b for b in len(payload).to_bytes(8, "big")),
        "# u64 checksum = 0",
        "00 00 00 00 00 00 00 00",
        "# header: " + CONTROL,
    ] + hex_block(header) + ["# body: PreprocessedRequest in msgpack"] + hex_block(payload)
    with open(os.path.join(OUT, "msgpack_request_envelope.hex"), "w") as f:
        f.write("\n".join(lines) + "\n")
    write("msgpack_data_item.hex", "Response item body, msgpack: "
          '{"data":{"data":{"token_ids":[11,12]}},"complete_final":false}', data_item())
    write("msgpack_finished_item.hex", "Response item body, msgpack: "
          '{"data":{"data":{"token_ids":[13],"finish_reason":"length","log_probs":[-0.5]}},'
          '"complete_final":false}', finished_item())
    write("msgpack_rust_item.hex", "Response item body, msgpack, as a Rust engine writes it: every"
          " LLMEngineOutput field\nwithout a skip attribute, nil when None", rust_item())
    write("msgpack_complete_final.hex", 'Last response item body, msgpack: {"complete_final":true}',
          complete_final())


if __name__ == "__main__":
    main()
