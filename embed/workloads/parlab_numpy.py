"""NumPy (and CuPy) library backends: the canonical Philox pi stream vectorised over arrays of counters.

The arithmetic is core/philox.hpp's, on uint64 arrays holding 32-bit words: a 32x32-bit product
fits in 64 bits exactly, and the hit test x^2 + y^2 < 2^64 is "the uint64 sum did not wrap". So
these backends return the canonical hit count and are validated exactly. `xp` is numpy or cupy.
"""

import numpy as np

import parlab_philox
from parlab_team import ThreadTeam, accounted

MASK = np.uint64(0xFFFFFFFF)
MUL0 = np.uint64(parlab_philox.MUL0)
MUL1 = np.uint64(parlab_philox.MUL1)
S32 = np.uint64(32)


def pair_hits(xp, keys, pair_begin, pair_end):
    """(first, second): whether each point of the pairs [pair_begin, pair_end) hits."""
    x0 = xp.arange(pair_begin, pair_end, dtype=xp.uint64)
    x1 = x0 >> S32
    x0 &= MASK
    x2 = xp.zeros_like(x0)
    x3 = xp.zeros_like(x0)
    p0 = xp.empty_like(x0)
    p1 = xp.empty_like(x0)
    for k0, k1 in keys:
        xp.multiply(x0, MUL0, out=p0)
        xp.multiply(x2, MUL1, out=p1)
        # x0' = hi(p1) ^ x1 ^ k0, x1' = lo(p1), x2' = hi(p0) ^ x3 ^ k1, x3' = lo(p0); each
        # written after its old value was last read.
        xp.right_shift(p1, S32, out=x0)
        x0 ^= x1
        x0 ^= np.uint64(k0)
        xp.bitwise_and(p1, MASK, out=x1)
        xp.right_shift(p0, S32, out=x2)
        x2 ^= x3
        x2 ^= np.uint64(k1)
        xp.bitwise_and(p0, MASK, out=x3)
    xp.multiply(x0, x0, out=p0)
    xp.multiply(x1, x1, out=p1)
    p1 += p0
    first = p1 >= p0  # the sum did not wrap: x^2 + y^2 < 2^64
    xp.multiply(x2, x2, out=p0)
    xp.multiply(x3, x3, out=p1)
    p1 += p0
    second = p1 >= p0
    return first, second


def hits_points(xp, seed, begin, end, chunk_pairs):
    """Hits of the points [begin, end), in chunks of `chunk_pairs` pairs (bounded memory). Pairs
    cut by the range's ends are computed whole and their outside point subtracted."""
    if begin >= end:
        return 0
    keys = parlab_philox.round_keys(seed)
    pair_begin, pair_end = begin >> 1, (end + 1) >> 1
    total = 0
    for cb in range(pair_begin, pair_end, chunk_pairs):
        ce = min(cb + chunk_pairs, pair_end)
        first, second = pair_hits(xp, keys, cb, ce)
        total = total + xp.count_nonzero(first) + xp.count_nonzero(second)
        if cb == pair_begin and begin & 1:
            total = total - first[0].astype(xp.int64)
        if ce == pair_end and end & 1:
            total = total - second[-1].astype(xp.int64)
    return int(total)


# Pairs per NumPy chunk: six uint64 arrays of 64 Ki elements are 3 MiB, inside L2+L3, so the
# figure measures NumPy's loops rather than DRAM.
NUMPY_CHUNK_PAIRS = 1 << 16


class NumpyPi:
    """NumPy vectorised pi: on one thread, or split over a ThreadPoolExecutor, where NumPy's
    ufunc loops release the GIL but the Python between them does not."""

    def __init__(self, seed, samples, threads, threaded):
        self.seed, self.samples = seed, samples
        self.team = ThreadTeam(threads) if threaded else None
        self.parts = [(parlab_philox.split(samples, threads, t),
                       parlab_philox.split(samples, threads, t + 1)) for t in range(threads)]

    def _range(self, begin, end):
        # A thread's part is one chunk of its worker's accounting (docs/records.md, "Workers").
        return accounted(end - begin, hits_points, np, self.seed, begin, end, NUMPY_CHUNK_PAIRS)

    def run(self):
        if self.team is None:
            return self._range(0, self.samples)
        return sum(self.team.run(self._range, self.parts))

    def stats(self):
        return self.team.stats() if self.team is not None else {}

    def close(self):
        if self.team is not None:
            self.team.close()


# Pairs per CuPy chunk: 2^24 pairs is 128 MiB per array, a few hundred MiB in all, large enough
# to fill a GPU and small enough for any card parlab targets.
CUPY_CHUNK_PAIRS = 1 << 24


class CupyPi:
    """The same vectorised code on a GPU through CuPy; one host thread."""

    def __init__(self, seed, samples, device, unavailable):
        import cupy
        self.cupy = cupy
        self.device = _cupy_device(cupy, device, unavailable)
        self.seed, self.samples = seed, samples
        with self.device:
            hits_points(cupy, seed, 0, 4099, CUPY_CHUNK_PAIRS)  # compile the kernels untimed
            cupy.cuda.runtime.deviceSynchronize()

    def run(self):
        with self.device:
            return hits_points(self.cupy, self.seed, 0, self.samples, CUPY_CHUNK_PAIRS)

    def stats(self):
        return {}

    def close(self):
        pass


def _cupy_device(cupy, device, unavailable):
    """cupy.cuda.Device(device), or `unavailable` raised with the reason."""
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # CUDARuntimeError: no driver or no device
        raise unavailable(f"CuPy sees no CUDA device: {e}") from e
    if device >= count:
        raise unavailable(f"CuPy sees {count} CUDA device(s); device {device} does not exist")
    return cupy.cuda.Device(device)


class CupyTriad:
    """STREAM triad a = b + scalar * c on a GPU as a CUDA programmer writes it in CuPy: one
    ElementwiseKernel (one pass, no temporaries), the library code parlab's own CUDA triad is held to.
    run() waits for the kernel, so the host clock times the kernel plus one launch (a few
    microseconds against about a millisecond at 2^28 doubles). NVRTC may fuse the multiply-add,
    which stays inside the gold check's tolerance; arrays() copies the three arrays back to the
    host for that check."""

    def __init__(self, n, dtype, device, unavailable):
        import cupy
        self.cupy = cupy
        self.device = _cupy_device(cupy, device, unavailable)
        with self.device:
            self.kernel = cupy.ElementwiseKernel("T b, T c, T s", "T a", "a = b + s * c", "parlab_library_triad")
            self.a = cupy.full(n, 0.1, dtype=dtype)
            self.b = cupy.full(n, 0.2, dtype=dtype)
            self.c = cupy.full(n, 0.0, dtype=dtype)
            self.scalar = dtype(0.4)
            scratch = cupy.zeros(1, dtype=dtype)  # compile the kernel untimed, arrays untouched
            self.kernel(scratch, scratch, self.scalar, scratch)
            self.device.synchronize()

    def run(self):
        with self.device:
            self.kernel(self.b, self.c, self.scalar, self.a)
            self.device.synchronize()

    def arrays(self):
        with self.device:
            return tuple(self.cupy.asnumpy(x) for x in (self.a, self.b, self.c))

    def stats(self):
        return {}

    def close(self):
        pass


class NumpyTriad:
    """STREAM triad a = b + scalar * c in NumPy, one thread: two ufunc passes (multiply into a,
    then add b), each rounded as parlab's C++ loop rounds it (no fused multiply-add). The
    arrays start at BabelStream's values; C++ checks them against gold after the runs."""

    def __init__(self, n, dtype):
        self.a = np.full(n, 0.1, dtype=dtype)
        self.b = np.full(n, 0.2, dtype=dtype)
        self.c = np.full(n, 0.0, dtype=dtype)
        self.scalar = dtype(0.4)

    def run(self):
        np.multiply(self.c, self.scalar, out=self.a)
        np.add(self.b, self.a, out=self.a)

    def arrays(self):
        return self.a, self.b, self.c

    def stats(self):
        return {}

    def close(self):
        pass
