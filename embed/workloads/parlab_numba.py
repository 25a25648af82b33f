"""Numba library backends: core/pi.hpp's loop compiled by Numba, run by prange or in nogil threads.

Every value is typed uint64 explicitly: Numba, like NumPy, turns uint64 mixed with int64 into
float64, which would silently break the exact hit test.
"""

import numba
import numpy as np
from numba import njit, prange

import parlab_numpy
import parlab_philox
from parlab_team import ThreadTeam, accounted

U = np.uint64
MASK = U(0xFFFFFFFF)
MUL0 = U(parlab_philox.MUL0)
MUL1 = U(parlab_philox.MUL1)
WEYL0 = U(parlab_philox.WEYL0)
WEYL1 = U(parlab_philox.WEYL1)
S32 = U(32)
ONE = U(1)
ZERO = U(0)


@njit(inline="always")
def _philox(j, k0, k1):
    x0 = j & MASK
    x1 = j >> S32
    x2 = ZERO
    x3 = ZERO
    for _ in range(10):
        p0 = x0 * MUL0
        p1 = x2 * MUL1
        x0 = (p1 >> S32) ^ x1 ^ k0
        x1 = p1 & MASK
        x2 = (p0 >> S32) ^ x3 ^ k1
        x3 = p0 & MASK
        k0 = (k0 + WEYL0) & MASK
        k1 = (k1 + WEYL1) & MASK
    return x0, x1, x2, x3


@njit(inline="always")
def _hit(x, y):
    xx = x * x
    return ONE if xx + y * y >= xx else ZERO  # the uint64 sum did not wrap


@njit(nogil=True)
def hits_points(seed, begin, end):
    """core/pi.hpp pi_hits_points, serial; releases the GIL for its whole run."""
    k0 = seed & MASK
    k1 = seed >> S32
    hits = ZERO
    if begin >= end:
        return hits
    if begin & ONE:
        x0, x1, x2, x3 = _philox(begin >> ONE, k0, k1)
        hits += _hit(x2, x3)
        begin += ONE
    for j in range(begin >> ONE, end >> ONE):
        x0, x1, x2, x3 = _philox(U(j), k0, k1)
        hits += _hit(x0, x1) + _hit(x2, x3)
    if (end & ONE) and end - ONE >= begin:
        x0, x1, x2, x3 = _philox(end >> ONE, k0, k1)
        hits += _hit(x0, x1)
    return hits


@njit(parallel=True)
def hits_points_prange(seed, begin, end):
    """The same with the whole pairs spread over Numba's thread pool by prange; a point whose
    pair is cut by the range's start or end is counted by hits_points."""
    hits = ZERO
    if begin >= end:
        return hits
    if begin & ONE:
        hits += hits_points(seed, begin, begin + ONE)
        begin += ONE
    if (end & ONE) and end - ONE >= begin:
        hits += hits_points(seed, end - ONE, end)
        end -= ONE
    k0 = seed & MASK
    k1 = seed >> S32
    pair_begin = begin >> ONE
    pairs = np.int64((end >> ONE) - pair_begin) if (end >> ONE) > pair_begin else np.int64(0)
    total = ZERO
    for i in prange(pairs):
        x0, x1, x2, x3 = _philox(pair_begin + U(i), k0, k1)
        total += _hit(x0, x1) + _hit(x2, x3)
    return hits + total


def _compile():
    # Compile both entry points (uint64 signatures) outside any timed region.
    hits_points(U(1), U(1), U(7))
    hits_points_prange(U(1), U(1), U(7))


def _check_pool(threads, unavailable):
    pool_threads = numba.config.NUMBA_NUM_THREADS
    if threads > pool_threads:
        raise unavailable(f"Numba's pool has {pool_threads} threads (NUMBA_NUM_THREADS); {threads} were asked for")


class NumbaPrange:
    """@njit(parallel=True) with prange over the pairs, on numba.set_num_threads(threads)."""

    def __init__(self, seed, samples, threads, unavailable):
        _check_pool(threads, unavailable)
        self.seed, self.samples, self.threads = U(seed), U(samples), threads
        _compile()

    def run(self):
        numba.set_num_threads(self.threads)  # per calling thread in Numba: set on every run
        return int(hits_points_prange(self.seed, U(0), self.samples))

    def stats(self):
        return {}

    def close(self):
        pass


class NumbaNogilThreads:
    """@njit(nogil=True) called from a ThreadPoolExecutor: compiled code, no GIL while it runs."""

    def __init__(self, seed, samples, threads):
        self.seed = U(seed)
        self.team = ThreadTeam(threads)
        self.parts = [(U(parlab_philox.split(samples, threads, t)),
                       U(parlab_philox.split(samples, threads, t + 1))) for t in range(threads)]
        _compile()

    def _range(self, begin, end):
        # A thread's part is one chunk of its worker's accounting (docs/records.md, "Workers").
        return int(accounted(int(end - begin), hits_points, self.seed, begin, end))

    def run(self):
        return sum(self.team.run(self._range, self.parts))

    def stats(self):
        return self.team.stats()

    def close(self):
        self.team.close()


@njit(parallel=True)
def triad_prange(a, b, c, scalar):
    """STREAM triad over Numba's thread pool; Numba's default (no fastmath) does not fuse."""
    for i in prange(a.size):
        a[i] = b[i] + scalar * c[i]


class NumbaTriadPrange(parlab_numpy.NumpyTriad):
    """STREAM triad with prange on numba.set_num_threads(threads); arrays as NumpyTriad's."""

    def __init__(self, n, threads, dtype, unavailable):
        _check_pool(threads, unavailable)
        super().__init__(n, dtype)
        self.threads = threads
        small = np.zeros(3, dtype=dtype)
        triad_prange(small, small, small, self.scalar)  # compile outside any timed region

    def run(self):
        numba.set_num_threads(self.threads)  # per calling thread in Numba: set on every run
        triad_prange(self.a, self.b, self.c, self.scalar)
