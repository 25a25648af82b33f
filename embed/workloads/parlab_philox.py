"""parlab's canonical pi stream in pure Python (docs/design.md, "The pi stream").

The same Philox4x32-10 as core/philox.hpp and the same exact integer hit test as core/pi.hpp,
so the pure-Python backends return the canonical hit count, bit for bit, and are validated
exactly like every C++ backend. This is the GIL-bound workload: each point is a few hundred
bytecodes with nothing that releases the GIL.
"""

MASK32 = 0xFFFFFFFF
MUL0 = 0xD2511F53
MUL1 = 0xCD9E8D57
WEYL0 = 0x9E3779B9
WEYL1 = 0xBB67AE85
TWO64 = 1 << 64


def round_keys(seed):
    """The ten (k0, k1) round keys of `seed`: the key is bumped between rounds."""
    k0, k1 = seed & MASK32, (seed >> 32) & MASK32
    keys = []
    for _ in range(10):
        keys.append((k0, k1))
        k0, k1 = (k0 + WEYL0) & MASK32, (k1 + WEYL1) & MASK32
    return tuple(keys)


def philox(j, keys):
    """Philox4x32-10 of the counter {lo32(j), hi32(j), 0, 0}: the four words of pair j."""
    x0, x1, x2, x3 = j & MASK32, j >> 32, 0, 0
    for k0, k1 in keys:
        p0 = MUL0 * x0
        p1 = MUL1 * x2
        x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & MASK32, (p0 >> 32) ^ x3 ^ k1, p0 & MASK32
    return x0, x1, x2, x3


def pair_hits(j, keys):
    x0, x1, x2, x3 = philox(j, keys)
    return (x0 * x0 + x1 * x1 < TWO64) + (x2 * x2 + x3 * x3 < TWO64)


def hits_pairs(keys, pair_begin, pair_end):
    """Hits of both points of every pair in [pair_begin, pair_end): the hot loop, inlined."""
    hits = 0
    for j in range(pair_begin, pair_end):
        x0, x1, x2, x3 = j & MASK32, j >> 32, 0, 0
        for k0, k1 in keys:
            p0 = MUL0 * x0
            p1 = MUL1 * x2
            x0, x1, x2, x3 = (p1 >> 32) ^ x1 ^ k0, p1 & MASK32, (p0 >> 32) ^ x3 ^ k1, p0 & MASK32
        if x0 * x0 + x1 * x1 < TWO64:
            hits += 1
        if x2 * x2 + x3 * x3 < TWO64:
            hits += 1
    return hits


def hits_points(seed, begin, end):
    """Hits of the points [begin, end) of the stream of `seed` (core/pi.hpp pi_hits_points)."""
    if begin >= end:
        return 0
    keys = round_keys(seed)
    hits = 0
    if begin & 1:  # the second point of a pair whose first point lies outside the range
        x0, x1, x2, x3 = philox(begin >> 1, keys)
        hits += x2 * x2 + x3 * x3 < TWO64
        begin += 1
    hits += hits_pairs(keys, begin >> 1, end >> 1)
    if end & 1 and end - 1 >= begin:  # the first point of a pair cut by the range's end
        x0, x1, x2, x3 = philox(end >> 1, keys)
        hits += x0 * x0 + x1 * x1 < TWO64
    return hits


def split(n, parts, p):
    """Begin of part p of [0, n) cut into `parts` near-equal ranges (executor.hpp static_split)."""
    q, r = divmod(n, parts)
    return p * q + min(p, r)
