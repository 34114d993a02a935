#!/usr/bin/env python3
"""Writes the golden vLLM KV event payloads into kvrouter-core/src/test/resources/golden/vllm/.

Each fixture is one msgpack payload as the third frame of vLLM's ZMQ PUB message carries it
(vLLM's msgspec structs in vllm/distributed/kv_events.py, vllm-project/vllm), packed by the reference Python `msgpack`
module, independently of the Java codec under test (VllmEventCodecTest decodes every fixture
and re-encodes the ones our publisher emits, byte for byte).

Needs the `msgpack` module: `apt-get install -y python3-msgpack` (Debian), or `pip install
msgpack`. Debian's package lands in /usr/lib/python3/dist-packages, which a pyenv python3 does
not search, so this script adds that directory when the plain import fails. Run from anywhere:

    python3 scripts/golden/vllm_events.py

Python msgpack packs floats as float64, ints in their smallest form (positive ints unsigned,
above 2**63 as uint64), str as fixstr/str8/... and bytes as bin, dicts in insertion order, which
is what msgspec emits for vLLM's structs too.
"""
import os
import sys

try:
    import msgpack
except ImportError:  # Debian's python3-msgpack under a pyenv interpreter
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import msgpack
    except ImportError:
        sys.exit("the msgpack module is missing: apt-get install -y python3-msgpack")

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kvrouter-core",
                   "src", "test", "resources", "golden", "vllm")

H_OBSERVED = 15760518052499183552          # the v0.26.0 sample: above 2**63
H_BIG = 0xF0E1D2C3B4A59687                 # above 2**63: uint64 on the wire
H_SMALL = 0x0123456789ABCDEF               # below 2**63: uint64 too (> 2**32)
H_PARENT = 0x00000000DEADBEEF              # uint32 on the wire
H_TINY = 42                                # positive fixint

DIGEST_A = bytes(range(0x00, 0x20))        # 32-byte sha256-shaped digests
DIGEST_B = bytes(range(0xE0, 0x100))
DIGEST_P = bytes(0xA0 + (i % 16) for i in range(32))


def tokens(start, n):
    return list(range(start, start + n))


FIXTURES = {}


def fixture(name, description, obj):
    FIXTURES[name] = (description, msgpack.packb(obj, use_bin_type=True))


# 1. What vLLM v0.26.0 was observed to publish: array batch, map events, omit_defaults
#    (extra_keys [None] is present because it is not None), dp rank 0.
fixture("map_v0_26_observed.msgpack",
        "vLLM v0.26.0 as observed: array batch, one map BlockStored with extra_keys [None], "
        "group_idx 0, kv_cache_spec_kind full_attention (Encoding.MAP writes it back byte for "
        "byte)",
        [1767225600.25,
         [{"type": "BlockStored",
           "block_hashes": [H_OBSERVED],
           "parent_block_hash": None,
           "token_ids": tokens(100, 16),
           "block_size": 16,
           "lora_id": None,
           "medium": "GPU",
           "lora_name": None,
           "extra_keys": [None],
           "group_idx": 0,
           "kv_cache_spec_kind": "full_attention"}],
         0])

# 2. The current generation exactly as our publisher (Encoding.MAP) writes it: None-valued
#    defaulted fields left out, lora_id/medium/lora_name always present.
fixture("map_current.msgpack",
        "current generation as VllmEventCodec.Encoding.MAP writes it (byte-compared): "
        "BlockStored x2, BlockRemoved, AllBlocksCleared, dp rank 3",
        [1767225601.5,
         [{"type": "BlockStored",
           "block_hashes": [H_BIG, H_SMALL],
           "parent_block_hash": H_PARENT,
           "token_ids": tokens(151600, 32),
           "block_size": 16,
           "lora_id": None,
           "medium": "GPU",
           "lora_name": None,
           "group_idx": 1,
           "kv_cache_spec_kind": "sliding_window"},
          {"type": "BlockStored",
           "block_hashes": [H_TINY],
           "parent_block_hash": None,
           "token_ids": [0, 1, 127, 128, 255, 256, 65535, 65536],
           "block_size": 8,
           "lora_id": 7,
           "medium": "CPU",
           "lora_name": "adapter-a"},
          {"type": "BlockRemoved", "block_hashes": [H_BIG, H_PARENT], "medium": "GPU"},
          {"type": "BlockRemoved", "block_hashes": [H_SMALL], "medium": None, "group_idx": 2},
          {"type": "AllBlocksCleared"}],
         3])

# 3. The legacy generation (array_like everywhere, every field present), as Encoding.ARRAY
#    writes it: BlockStored has 11 elements up to kv_cache_spec_kind, BlockRemoved 4.
fixture("array_legacy.msgpack",
        "legacy generation as VllmEventCodec.Encoding.ARRAY writes it (byte-compared): "
        "BlockStored (2 hashes, one above 2^63, with parent), BlockRemoved, AllBlocksCleared, "
        "dp rank 1",
        [1767225602.75,
         [["BlockStored", [H_SMALL, H_BIG], H_PARENT, tokens(1000, 32), 16,
           None, "GPU", None, None, None, None],
          ["BlockRemoved", [H_SMALL], "GPU", None],
          ["AllBlocksCleared"]],
         1])

# 4. The earliest publishers: a 2-element batch without dp rank, BlockStored without medium
#    and later fields, BlockRemoved with the hashes only.
fixture("array_legacy_2elem.msgpack",
        "earliest legacy: 2-element batch [ts, events], 6-element BlockStored, "
        "2-element BlockRemoved (decode only)",
        [1767225603.0,
         [["BlockStored", [H_TINY, H_BIG], None, tokens(5, 8), 4, None],
          ["BlockRemoved", [H_TINY]],
          ["AllBlocksCleared"]]])

# 5. Late main (0181ea31): EventBatch lost array_like too, so the batch is a map.
fixture("map_batch.msgpack",
        "late main: the batch itself a map {ts, events, data_parallel_rank}, map events "
        "(decode only)",
        {"ts": 1767225604.125,
         "events": [{"type": "BlockStored",
                     "block_hashes": [H_OBSERVED],
                     "parent_block_hash": H_BIG,
                     "token_ids": tokens(7, 16),
                     "block_size": 16,
                     "lora_id": None,
                     "medium": "GPU",
                     "lora_name": None,
                     "kv_cache_spec_kind": "full_attention"},
                    {"type": "BlockRemoved", "block_hashes": [H_OBSERVED], "medium": "GPU"}],
         "data_parallel_rank": 2})

# 6. VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0: full 32-byte digests as bin.
fixture("bin_hashes.msgpack",
        "32-byte bin hashes (VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=0), map events, "
        "int ts, nil dp rank (decode only)",
        [1767225605,
         [{"type": "BlockStored",
           "block_hashes": [DIGEST_A, DIGEST_B],
           "parent_block_hash": DIGEST_P,
           "token_ids": tokens(300, 32),
           "block_size": 16,
           "lora_id": None,
           "medium": "GPU",
           "lora_name": None},
          {"type": "BlockRemoved", "block_hashes": [DIGEST_B], "medium": "GPU"}],
         None])

# 7. Newer publishers than us, array generation: trailing fields we do not know
#    (kv_cache_spec_sliding_window, locality, ownership, something nested) and a longer batch.
fixture("array_extra_elements.msgpack",
        "array events with unknown trailing elements and a 4-element batch (decode only)",
        [1767225606.5,
         [["BlockStored", [H_BIG], None, tokens(40, 4), 4, None, "GPU", None,
           [["mm-hash", 0]], 0, "full_attention", 4096, "local", None, {"future": [1, 2.5]}],
          ["BlockRemoved", [H_BIG], "GPU", 0, "local", "owned", b"\x00\x01"],
          ["AllBlocksCleared", "reason", 17]],
         5, "trailing", [None]])

# 8. Newer publishers, map generation: unknown keys anywhere, "type" not first.
fixture("map_unknown_keys.msgpack",
        "map events with unknown keys (some before \"type\") and a map batch with unknown "
        "keys (decode only)",
        {"version": 2,
         "events": [{"locality": "remote",
                     "block_hashes": [H_SMALL],
                     "type": "BlockStored",
                     "parent_block_hash": None,
                     "token_ids": tokens(60, 2),
                     "block_size": 2,
                     "lora_id": None,
                     "medium": "GPU",
                     "lora_name": None,
                     "kv_cache_spec_sliding_window": 1024,
                     "extra_keys": [["salt", "x"]],
                     "ownership": {"owner": 1}},
                    {"type": "BlockRemoved", "block_hashes": [H_SMALL], "medium": "GPU",
                     "token_ids": "not ours to read"},
                    {"type": "AllBlocksCleared", "scope": "all"}],
         "ts": 1767225607.0,
         "publisher_epoch": "5c1f",
         "data_parallel_rank": None})

# 9 and 10. LoRA, hybrid KV cache groups and extra keys, in both generations, exactly as our
#    encoder writes them. vLLM's extra_keys has one entry per block: None, or the block's keys
#    (LoRA name first, then multimodal (identifier, offset) pairs, the cache salt in a sequence's
#    first block, a prompt-embeddings digest). The last block's keys are not what vLLM sends but
#    what its `Any` allows: every scalar type the codec reads.
IMAGE = "0123456789abcdef" * 4                  # a multimodal identifier: 64 hex chars
EMBEDS = bytes(range(0x40, 0x60))              # a 32-byte prompt-embeddings digest
LORA_KEYS = [["adapter-a"], ["adapter-a"]]
EXTRA_KEYS = [["tenant-salt"], None, [[IMAGE, 5], EMBEDS], [True, -3, 2.5, 2**64 - 1, None]]


def lora_hybrid(as_map):
    def stored(hashes, tokens, lora_id, lora_name, extra_keys, group, kind):
        if not as_map:
            return ["BlockStored", hashes, None, tokens, 16, lora_id, "GPU", lora_name,
                    extra_keys, group, kind]
        event = {"type": "BlockStored", "block_hashes": hashes, "parent_block_hash": None,
                 "token_ids": tokens, "block_size": 16, "lora_id": lora_id, "medium": "GPU",
                 "lora_name": lora_name}
        for key, value in (("extra_keys", extra_keys), ("group_idx", group),
                           ("kv_cache_spec_kind", kind)):
            if value is not None:  # omit_defaults
                event[key] = value
        return event

    removed = ({"type": "BlockRemoved", "block_hashes": [H_BIG], "medium": "GPU", "group_idx": 1}
               if as_map else ["BlockRemoved", [H_BIG], "GPU", 1])
    return [1767225608.5,
            [stored([H_BIG, H_SMALL], tokens(500, 32), 1, "adapter-a", LORA_KEYS, 0,
                    "sliding_window"),
             stored([H_BIG, H_SMALL], tokens(500, 32), 1, "adapter-a", LORA_KEYS, 1,
                    "full_attention"),
             stored([H_TINY, H_PARENT, H_OBSERVED, H_SMALL], tokens(0, 64), None, None,
                    EXTRA_KEYS, None, None),
             removed],
            0]


fixture("array_lora_hybrid.msgpack",
        "legacy generation as Encoding.ARRAY writes it (byte-compared): a LoRA store in a "
        "sliding-window and a full-attention group, a store with every kind of extra key, "
        "a removal from group 1",
        lora_hybrid(as_map=False))

fixture("map_lora_hybrid.msgpack",
        "the same batch as array_lora_hybrid, current generation as Encoding.MAP writes it "
        "(byte-compared)",
        lora_hybrid(as_map=True))


# 7. A salted request as the simulated worker publishes it (block size 16): the engine salt is
#    vLLM's cache_salt as Dynamo's handler passes a namespace ("dynamo-cache-salt:" + namespace);
#    vLLM lists it in the extra_keys of the sequence's first block only, so the store of the
#    block filled later names its parent and no extra keys. The block hashes are vLLM's sha256_cbor
#    of these tokens with that salt (vllm_block_hashes.py), as the events carry them.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vllm_block_hashes import block_hashes  # noqa: E402

SALT = "dynamo-cache-salt:tenant-a"
SALTED = [int.from_bytes(d[-8:], "big") for d in block_hashes(tokens(0, 48), 16, SALT)]
fixture("map_cache_salt.msgpack",
        "current generation as Encoding.MAP writes it (byte-compared, and what the simulated "
        "worker publishes): a store salted with dynamo-cache-salt:tenant-a in its first block's "
        "extra_keys, then the store of the sequence's next block under its parent, without "
        "extra_keys",
        [1767225610.0,
         [{"type": "BlockStored", "block_hashes": SALTED[:2], "parent_block_hash": None,
           "token_ids": tokens(0, 32), "block_size": 16, "lora_id": None, "medium": "GPU",
           "lora_name": None, "extra_keys": [[SALT], None]},
          {"type": "BlockStored", "block_hashes": SALTED[2:], "parent_block_hash": SALTED[1],
           "token_ids": tokens(32, 16), "block_size": 16, "lora_id": None, "medium": "GPU",
           "lora_name": None}],
         0])


# 8. A producer that names the namespace in a top-level "cache_salt" field, as Dynamo's ZMQ
#    decoder accepts it (lib/kv-router/src/zmq_wire/types.rs: RawKvEvent::BlockStored's
#    cache_namespace, serde-renamed cache_salt), here with the raw salt also in the first block's
#    extra_keys; then a store that names it without extra keys.
fixture("map_top_level_cache_salt.msgpack",
        "map BlockStored events with a top-level cache_salt (Dynamo's decoder reads it; not "
        "vLLM's field), the first also with the raw salt in its first block's extra_keys "
        "(Encoding.MAP writes it back byte for byte)",
        [1767225611.0,
         [{"type": "BlockStored", "block_hashes": [H_SMALL, H_BIG], "parent_block_hash": None,
           "token_ids": tokens(0, 32), "block_size": 16, "lora_id": None, "medium": "GPU",
           "lora_name": None, "extra_keys": [["tenant-a"], None], "cache_salt": "tenant-a"},
          {"type": "BlockStored", "block_hashes": [H_TINY], "parent_block_hash": None,
           "token_ids": tokens(100, 16), "block_size": 16, "lora_id": None, "medium": "GPU",
           "lora_name": None, "cache_salt": "tenant-b"}],
         0])

def main():
    os.makedirs(OUT, exist_ok=True)
    lines = ["# vLLM KV event payloads (golden)", "",
             "Written by `scripts/golden/vllm_events.py` with Python msgpack %s; "
             "do not edit by hand. Layouts: vLLM's `vllm/distributed/kv_events.py` (vllm-project/vllm); "
             "expected records: `VllmEventCodecTest`." % ".".join(map(str, msgpack.version)),
             ""]
    for name, (description, payload) in FIXTURES.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(payload)
        lines.append("- `%s` (%d bytes): %s" % (name, len(payload), description))
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
