"""A pure-Python kernel: an integer hash per item, summed. Every item is bytecode under the
interpreter, so threads that hold the GIL take turns (no speedup, often a loss), while on a
free-threaded CPython (3.13t) they run at once."""

# Per item: a multiply, an add, a xor, a shift and a mask, counted as 5 operations; no memory
# traffic beyond the interpreter's own.
WORK = {"bytes": 0, "flops": 5}


def chunk(lo, hi, seed):
    total = 0
    for i in range(lo, hi):
        x = (i * 0x9E3779B1 + seed) & 0xFFFFFFFF
        x ^= x >> 15
        total += x & 0xFFFF
    return total
