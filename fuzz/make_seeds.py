#!/usr/bin/env python3
"""Writes the committed seed inputs in fuzz/seeds/ (run from the repository root).

Every seed is written here, by us: HPACK blocks and Huffman strings typed from RFC 7541's
examples, small gzip/zlib/raw streams made with Python's zlib, and fixed pseudo-random bytes for
the targets that read structured input. The shared data (hpack-test-case, the gzip files) is
not copied: `cargo lab fuzz` points the fuzzer at it or derives inputs from it at run time.
"""
import gzip, os, random, struct, zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds")


def put(target, name, data):
    d = os.path.join(ROOT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def blocks(config, *hexes):
    out = bytes([config])
    for h in hexes:
        b = bytes.fromhex(h)
        out += struct.pack(">H", len(b)) + b
    return out


# RFC 7541 C.2.1, C.3.1-C.3.3, C.4.1, a size update, index 0, a truncated integer.
put("hpack_decode", "rfc-c2", blocks(3, "400a637573746f6d2d6b65790d637573746f6d2d686561646572",
                                     "040c2f73616d706c652f70617468", "100870617373776f726406736563726574", "82"))
put("hpack_decode", "rfc-c3", blocks(3, "828684410f7777772e6578616d706c652e636f6d",
                                     "828684be58086e6f2d6361636865",
                                     "828785bf400a637573746f6d2d6b65790c637573746f6d2d76616c7565"))
put("hpack_decode", "rfc-c4", blocks(11, "828684418cf1e3c2e5f23a6ba0ab90f4ff", "828684be5886a8eb10649cbf"))
put("hpack_decode", "size-update", blocks(3, "3fe11f82", "2082", "8220"))
put("hpack_decode", "bad-index", blocks(1, "80", "ff8080808008", "0f"))

put("huffman_decode_diff", "www", bytes.fromhex("f1e3c2e5f23a6ba0ab90f4ff"))
put("huffman_decode_diff", "no-cache", bytes.fromhex("a8eb10649cbf"))
put("huffman_decode_diff", "bad-padding", bytes.fromhex("00"))
put("huffman_decode_diff", "eos", bytes.fromhex("ffffffff"))
put("huffman_roundtrip", "www", b"www.example.com")
put("huffman_roundtrip", "all-octets", bytes(range(256)))

text = b"".join(b"line %d of a small text that compresses well\n" % i for i in range(200))
put("gzip_decode", "gzip", gzip.compress(text, mtime=0))
put("gzip_decode", "gzip-multi-padded", gzip.compress(b"a" * 300, mtime=0) + gzip.compress(b"b", mtime=0) + b"\0" * 5)
put("gzip_decode", "gzip-truncated", gzip.compress(text, mtime=0)[:-6])
put("gzip_decode", "zlib", zlib.compress(text, 9))
raw = zlib.compressobj(6, zlib.DEFLATED, -15)
put("gzip_decode", "raw", raw.compress(text) + raw.flush())
put("gzip_decode", "stored", zlib.compress(bytes(range(256)) * 4, 0))

rng = random.Random(7541)
for target in ["hpack_roundtrip", "coding_roundtrip", "latin1_diff", "block_ops", "write_to_diff"]:
    for n in (16, 64, 512, 4096):
        put(target, f"random-{n}", bytes(rng.randrange(256) for _ in range(n)))
put("latin1_diff", "text", "plain ascii, Latin-1 é ÿ, and € beyond".encode() + bytes(8))
put("coding_roundtrip", "text", bytes([0, 6, 1, 0, 16, 3]) + text[:2000])

# crc_pieces: byte 0 = number of cut bytes, each cut = a piece of 3 * cut octets, then the octets.
crc_rng = random.Random(32)
octets = bytes(crc_rng.randrange(256) for _ in range(5000))
put("crc_pieces", "pieces-of-63", bytes([60]) + bytes([21] * 60) + octets)
put("crc_pieces", "pieces-mixed", bytes([12, 1, 85, 86, 0, 255, 21, 22, 100, 3, 200, 64, 43]) + octets)
put("crc_pieces", "one-piece", bytes([0]) + octets)
put("crc_pieces", "empty", bytes([5, 0, 0, 0, 0, 0]))
