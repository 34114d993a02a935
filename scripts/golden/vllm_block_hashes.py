#!/usr/bin/env python3
"""Golden values for io.kvrouter.worker.kv.VllmBlockHasher (VllmBlockHasherTest).

Reproduces vLLM's prefix-caching block hash with --prefix-caching-hash-algo sha256_cbor and
PYTHONHASHSEED=0, using only the standard library:

  NONE_HASH = sha256(cbor("0"))                          (the seed string, CBOR text)
  h_i       = sha256(cbor([h_{i-1} or NONE_HASH, [tokens of block i], extra_i]))
  extra_0   = (cache_salt,) for a salted request, else None; extra_i = None for i > 0

vLLM's generate_block_hash_extra_keys (vllm/v1/core/kv_cache_utils.py) adds the request's
cache_salt to the extra keys of the block starting at token 0 only; the tuple is a CBOR array.

cbor() is cbor2.dumps(obj, canonical=True) for exactly these shapes: a text string, and an
array of (32-byte bstr, array of unsigned ints, null). Only full blocks are hashed. The value vLLM
puts in its KV events (VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES=1) is the digest's last 8 bytes read
big-endian as an unsigned integer; it is printed here as a signed 64-bit value too, which is how
Java holds it.

Run:  python3 scripts/golden/vllm_block_hashes.py
"""

import hashlib


def _head(major, value):
    """A CBOR item head in its shortest form (canonical CBOR, RFC 8949 §4.2.1)."""
    if value < 24:
        return bytes([major << 5 | value])
    for info, width in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if value < 1 << (8 * width):
            return bytes([major << 5 | info]) + value.to_bytes(width, "big")
    raise ValueError("too large for CBOR: %d" % value)


def cbor_text(s):
    data = s.encode("utf-8")
    return _head(3, len(data)) + data


def cbor_block(parent, tokens, salt=None):
    out = _head(4, 3)  # array(3)
    out += _head(2, len(parent)) + parent  # bstr parent digest
    out += _head(4, len(tokens))  # array of token ids
    for t in tokens:
        out += _head(0, t)  # unsigned int, shortest form
    if salt is None:
        out += b"\xf6"  # null: no extra keys
    else:
        out += _head(4, 1) + cbor_text(salt)  # the one-element tuple (cache_salt,)
    return out


NONE_HASH = hashlib.sha256(cbor_text("0")).digest()


def block_hashes(tokens, block_size, salt=None):
    parent = NONE_HASH
    result = []
    for start in range(0, len(tokens) - block_size + 1, block_size):
        extra = salt if start == 0 else None
        parent = hashlib.sha256(
            cbor_block(parent, tokens[start:start + block_size], extra)).digest()
        result.append(parent)
    return result


def signed64(value):
    return value - (1 << 64) if value >= 1 << 63 else value


CASES = [
    # Mooncake Conductor's sha256_cbor fixture (made with vLLM and cbor2) has this case too:
    # c9d58ba6...8ef071cb, 24125b23...154ab2d6; matching it checks the hand-written encoder.
    ("1..8, block 4", [1, 2, 3, 4, 5, 6, 7, 8], 4),
    ("0..31, block 16", list(range(32)), 16),
    ("0..32, block 16 (partial block ignored)", list(range(33)), 16),
    ("widths 23 24 255 256 65535 65536 2^31-1 0, block 4",
     [23, 24, 255, 256, 65535, 65536, 2147483647, 0], 4),
    ("vocabulary-sized ids, block 3", [151643, 151644, 872, 198, 9707, 11, 1879], 3),
]

SALTED_CASES = [
    # cache_salt as Dynamo's vLLM handler passes a namespace: tagged "dynamo-cache-salt:"
    ("0..31, block 16, salt dynamo-cache-salt:tenant-a", list(range(32)), 16,
     "dynamo-cache-salt:tenant-a"),
]


def main():
    print("NONE_HASH", NONE_HASH.hex())
    for name, tokens, block_size in CASES:
        print("#", name)
        for i, digest in enumerate(block_hashes(tokens, block_size)):
            value = int.from_bytes(digest[-8:], "big")
            print("block %d %s %d %dL" % (i, digest.hex(), value, signed64(value)))
    for name, tokens, block_size, salt in SALTED_CASES:
        print("#", name)
        for i, digest in enumerate(block_hashes(tokens, block_size, salt)):
            value = int.from_bytes(digest[-8:], "big")
            print("block %d %s %d %dL" % (i, digest.hex(), value, signed64(value)))


if __name__ == "__main__":
    main()
