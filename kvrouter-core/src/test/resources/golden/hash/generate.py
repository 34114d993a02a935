#!/usr/bin/env python3
"""Regenerates block-hashes.txt from the reference xxHash C library (libxxhash, XXH3_64bits_withSeed).

Independent of the Java code under test: it builds the little-endian byte images itself and calls
the C library through ctypes (Debian package libxxhash0). Run from this directory:
    python3 generate.py > block-hashes.txt
"""
import ctypes
import ctypes.util
import random
import struct

_lib = ctypes.CDLL(ctypes.util.find_library("xxhash") or "libxxhash.so.0")
_xxh3 = _lib.XXH3_64bits_withSeed
_xxh3.restype = ctypes.c_uint64
_xxh3.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint64]
_version = _lib.XXH_versionNumber
_version.restype = ctypes.c_uint

MASK = (1 << 64) - 1


def xxh3(data: bytes, seed: int) -> int:
    return _xxh3(data, len(data), seed & MASK)


def seed_for(lora, ns):
    s = 1337
    if lora:
        s = (s + xxh3(lora.encode("utf-8"), 0)) & MASK
    if ns:
        s = (s + xxh3(ns.encode("utf-8"), 1)) & MASK
    return s


def local_hashes(tokens, bs, seed):
    out = []
    for b in range(len(tokens) // bs):
        block = tokens[b * bs:(b + 1) * bs]
        out.append(xxh3(struct.pack("<%dI" % bs, *block), seed))
    return out


def chain(local):
    seq = []
    for i, h in enumerate(local):
        seq.append(h if i == 0 else xxh3(struct.pack("<QQ", seq[-1], h), 1337))
    return seq


def case(name, bs, tokens, lora=None, ns=None):
    seed = seed_for(lora, ns)
    local = local_hashes(tokens, bs, seed)
    lines = ["name=" + name, "block_size=%d" % bs]
    if lora is not None:
        lines.append("lora=" + lora)
    if ns is not None:
        lines.append("namespace=" + ns)
    lines.append("seed=%d" % seed)
    lines.append("tokens=" + " ".join(str(t) for t in tokens))
    lines.append("local=" + " ".join(str(h) for h in local))
    lines.append("seq=" + " ".join(str(h) for h in chain(local)))
    return "\n".join(lines)


def main():
    rnd = random.Random(20260101)
    u32 = lambda n: [rnd.getrandbits(32) for _ in range(n)]
    vocab = lambda n: [rnd.randrange(152000) for _ in range(n)]
    cases = [
        case("reference-0..31", 16, list(range(32))),
        case("reference-lora-adapter-a", 16, list(range(32)), lora="adapter-a"),
        # XXH3 input-length classes: 4 (1-3 never occur), 8, 12, 16, 20, 128, 132, 240, 244,
        # 256, 1200, 2048 bytes per block.
        case("bs1-4-bytes", 1, u32(7)),
        case("bs2-8-bytes-partial", 2, u32(9)),
        case("bs3-12-bytes-partial", 3, u32(10)),
        case("bs4-16-bytes-partial", 4, u32(17)),
        case("bs5-20-bytes", 5, vocab(23)),
        case("bs32-128-bytes", 32, vocab(100)),
        case("bs33-132-bytes", 33, u32(70)),
        case("bs60-240-bytes", 60, vocab(125)),
        case("bs61-244-bytes", 61, u32(130)),
        case("bs64-high-bit-tokens", 64, [0xFFFFFFFF, 0x80000000, 0x7FFFFFFF] + u32(197)),
        case("bs64-lora", 64, vocab(260), lora="my-lora"),
        case("bs128-namespace", 128, vocab(300), ns="tenant-42"),
        case("bs300-1200-bytes", 300, vocab(650)),
        case("bs512-lora-and-namespace-utf8", 512, vocab(1600),
             lora="r\u00e9sum\u00e9-lora-\u65e5\u672c", ns="ns/\u03b1"),
        case("bs16-only-partial", 16, vocab(15)),
        case("bs16-empty", 16, []),
        case("bs16-ten-blocks", 16, vocab(160)),
    ]
    v = _version()
    print("# Block hashes computed by the reference xxHash C library %d.%d.%d (XXH3_64bits_withSeed)"
          % (v // 10000, v // 100 % 100, v % 100))
    print("# with generate.py beside this file. Hashes and seeds are unsigned decimal u64; tokens u32.")
    print("# local[i] = XXH3(LE_u32 tokens of block i, seed); seq[0] = local[0];")
    print("# seq[i] = XXH3(LE_u64(seq[i-1]) || LE_u64(local[i]), 1337);")
    print("# seed = 1337 + XXH3(utf8(lora), 0) + XXH3(utf8(namespace), 1) mod 2^64.")
    print()
    print("\n\n".join(cases))


if __name__ == "__main__":
    main()
