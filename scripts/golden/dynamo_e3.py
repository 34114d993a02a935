#!/usr/bin/env python3
"""Writes the golden Dynamo E3 event-plane fixtures into kvrouter-core/src/test/resources/golden/dynamo-e3/.

The bytes are laid out token by token from docs/notes/dynamo-e3-event-plane.md sections 2 and 6
(the worked example and the rmp_serde value rules), with a tiny hand-written msgpack emitter and
no msgpack library, so they are independent of the Java codec under test. Each fixture is hex,
one token per line with what it is after a '#'; the Java tests strip the comments.

Run from anywhere:

    python3 scripts/golden/dynamo_e3.py

The script asserts the sizes the notes state (RouterEvent 154 bytes, envelope 227, batch
envelope 228, the S3 batch envelope 252) before it writes anything.
"""
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kvrouter-core",
                   "src", "test", "resources", "golden", "dynamo-e3")


# ---- a minimal msgpack emitter: a value is a list of (bytes, comment, depth) tokens ----

def tok(data, comment="", depth=0):
    return [(bytes(data), comment, depth)]


def uint(v, comment="", depth=0):
    """The smallest unsigned form, as rmp writes a u64 or u32."""
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
    return tok(data, comment or str(v), depth)


def string(s, depth=0):
    raw = s.encode()
    assert len(raw) < 32, s  # every string here is a fixstr
    return tok([0xA0 | len(raw)] + list(raw), '"%s"' % s, depth)


def nil(depth=0):
    return tok([0xC0], "nil", depth)


def mapping(entries, depth=0, comment=""):
    """entries: list of (key, value-builder taking a depth)."""
    assert len(entries) < 16
    out = tok([0x80 | len(entries)], comment or "map(%d)" % len(entries), depth)
    for key, value in entries:
        out += string(key, depth + 1)
        out += value(depth + 2)
    return out


def array(items, depth=0):
    assert len(items) < 16
    out = tok([0x90 | len(items)], "array(%d)" % len(items), depth)
    for item in items:
        out += item(depth + 1)
    return out


def binary(payload_tokens, depth=0):
    size = sum(len(t[0]) for t in payload_tokens)
    assert size < 256  # bin8
    return tok([0xC4, size], "bin8 of %d bytes: the payload" % size, depth) + payload_tokens


def size(tokens):
    return sum(len(t[0]) for t in tokens)


# ---- Dynamo's types, in declared field order ----

def stored(parent, blocks):
    def build(depth):
        return mapping([
            ("stored", lambda d: mapping([
                ("parent_hash", lambda d2: nil(d2) if parent is None else uint(parent, depth=d2)),
                ("start_position", nil),
                ("blocks", lambda d2: array([
                    (lambda d3, b=b: mapping([
                        ("block_hash", lambda d4: uint(b[0], hex(b[0]), d4)),
                        ("tokens_hash", lambda d4: uint(b[1], hex(b[1]), d4)),
                        ("mm_extra_info", nil),
                    ], d3)) for b in blocks], d2)),
            ], d)),
        ], depth)
    return build


def removed(hashes):
    def build(depth):
        return mapping([
            ("removed", lambda d: mapping([
                ("block_hashes", lambda d2: array(
                    [(lambda d3, h=h: uint(h, hex(h), d3)) for h in hashes], d2)),
            ], d)),
        ], depth)
    return build


def cleared(depth):
    return string("cleared", depth)


def router_event(worker_id, event_id, data, dp_rank=0, s3=False):
    def build(depth):
        entries = [("worker_id", lambda d: uint(worker_id, depth=d)),
                   ("storage_tier", lambda d: string("device", d))]
        if s3:
            entries.append(("residency_domain", lambda d: string("worker", d)))
        entries.append(("event", lambda d: mapping([
            ("event_id", lambda d2: uint(event_id, depth=d2)),
            ("data", data),
            ("dp_rank", lambda d2: uint(dp_rank, depth=d2)),
        ], d)))
        return mapping(entries, depth, "RouterEvent map(%d)" % len(entries))
    return build


def envelope(payload_tokens):
    return mapping([
        ("publisher_id", lambda d: uint(1, depth=d)),
        ("sequence", lambda d: uint(0, depth=d)),
        ("published_at", lambda d: uint(1700000000000, depth=d)),
        ("topic", lambda d: string("kv-events", d)),
        ("payload", lambda d: binary(payload_tokens, d)),
    ], 0, "envelope map(5)")


def frame(envelope_tokens):
    n = size(envelope_tokens)
    header = tok([0x01], "version 1") + tok(list(n.to_bytes(4, "big")),
                                             "envelope length %d (u32 big-endian)" % n)
    return header + envelope_tokens


def render(title, tokens):
    lines = ["# " + line for line in title.strip().splitlines()]
    for data, comment, depth in tokens:
        text = " ".join("%02x" % b for b in data)
        lines.append("%-60s # %s%s" % (text, "  " * depth, comment))
    return "\n".join(lines) + "\n"


# ---- the fixtures ----

EXAMPLE_DATA = stored(None, [(0x1234, 0xABCD)])


def main():
    fixtures = {}

    s1_event = router_event(7, 1, EXAMPLE_DATA)(3)
    assert size(s1_event) == 154, size(s1_event)
    s1 = frame(envelope(s1_event))
    assert size(s1) == 5 + 227 and s1[1][0] == bytes([0, 0, 0, 0xE3])
    fixtures["s1_frame.hex"] = render("""
Frame 3 of the notes' worked example (docs/notes/dynamo-e3-event-plane.md section 2): publisher 1,
sequence 0, published at 1700000000000 ms, topic kv-events; the S1 payload is ONE RouterEvent
(worker 7, device, event 1 storing block_hash 0x1234 / tokens_hash 0xABCD at the sequence start,
dp rank 0), 154 bytes; the envelope is 227 bytes. Written by scripts/golden/dynamo_e3.py.
""", s1)

    s2_payload = array([router_event(7, 1, EXAMPLE_DATA)], 3)
    s2 = frame(envelope(s2_payload))
    assert size(s2) == 5 + 228 and s2[1][0] == bytes([0, 0, 0, 0xE4])
    fixtures["s2_batch_frame.hex"] = render("""
The worked example as S2 publishes it: the payload is an array holding the same RouterEvent
(155 bytes), the envelope 228 bytes. Written by scripts/golden/dynamo_e3.py.
""", s2)

    s3_payload = array([router_event(7, 1, EXAMPLE_DATA, s3=True)], 3)
    s3 = frame(envelope(s3_payload))
    assert size(s3_payload) == 179 and size(s3) == 5 + 252
    fixtures["s3_batch_frame.hex"] = render("""
The worked example as S3 publishes it: a batch of one RouterEvent that also carries
residency_domain "worker" after storage_tier (map(4), 178 bytes; the array 179 bytes), the
envelope 252 bytes. Written by scripts/golden/dynamo_e3.py.
""", s3)

    batch = array([
        router_event(7, 2, removed([0x1234, 2**64 - 1]), s3=True),
        router_event(7, 3, cleared, dp_rank=1, s3=True),
    ])
    fixtures["s3_removed_cleared_payload.hex"] = render("""
An S3 KV event payload (no envelope): worker 7 removes 0x1234 and 2^64-1 (a uint64 above 2^63)
in event 2, then clears dp rank 1 in event 3. Written by scripts/golden/dynamo_e3.py.
""", batch)

    load = mapping([
        ("worker_id", lambda d: uint(7, depth=d)),
        ("dp_rank", lambda d: uint(0, depth=d)),
        ("active_decode_blocks", nil),
        ("active_prefill_tokens", nil),
        ("kv_used_blocks", lambda d: uint(42, depth=d)),
    ], 0, "ActiveLoad map(5)")
    fixtures["active_load.hex"] = render("""
The notes' kv_metrics example (section 6): a worker's ActiveLoad, worker 7, dp rank 0, 42 KV
blocks in use, the scheduler's two counts nil. Written by scripts/golden/dynamo_e3.py.
""", load)

    os.makedirs(OUT, exist_ok=True)
    for name, text in fixtures.items():
        with open(os.path.join(OUT, name), "w") as f:
            f.write(text)
        print(name)


if __name__ == "__main__":
    main()
