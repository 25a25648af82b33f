"""Python threads splitting one pi stream: pure Python, or calling parlab.pi with the GIL held or
released. Each thread counts a contiguous range of points; the hits add up to the canonical count
of [0, samples) whatever the thread count (the stream is keyed by point index)."""

import parlab
import parlab_philox
from parlab_team import ThreadTeam

# Points per parlab.pi call: about a millisecond of work (2^21 points at the 1.2e9 to 2.7e9
# points/s of one core's SIMD kernel, core/pi_simd.hpp). Long enough that the GIL round trip
# around a call (a few microseconds under contention) stays small even with 16 threads queueing
# for it, short enough that threads hand the GIL over many times per run when it is held, which
# is what a real program calling a C extension in a loop does. (2^18 was about a millisecond for
# the scalar kernel; with the SIMD kernel it was 0.1 ms and the GIL round trips began to count.)
CALL_SAMPLES = 1 << 21


def _parts(samples, threads):
    return [(parlab_philox.split(samples, threads, t), parlab_philox.split(samples, threads, t + 1))
            for t in range(threads)]


class _TeamRunner:
    """Common shape of every runner: run() -> hits, stats() -> dict, close()."""

    def __init__(self, seed, samples, threads):
        self.seed, self.samples = seed, samples
        self.team = ThreadTeam(threads)
        self.parts = _parts(samples, threads)

    def stats(self):
        return self.team.stats()

    def close(self):
        self.team.close()


class PurePython(_TeamRunner):
    """Pure-Python Philox pi in a ThreadPoolExecutor: GIL-bound, about 1x at any thread count
    (and the free-threaded case, on a build without the GIL)."""

    def run(self):
        seed = self.seed
        return sum(self.team.run(lambda b, e: parlab_philox.hits_points(seed, b, e), self.parts))


class ParlabPi(_TeamRunner):
    """parlab.pi from each thread over its range, in calls of `call_samples` points."""

    def __init__(self, seed, samples, threads, release_gil, call_samples=CALL_SAMPLES):
        super().__init__(seed, samples, threads)
        self.release_gil = release_gil
        self.call_samples = call_samples

    def _range(self, begin, end):
        pi, seed, release, step = parlab.pi, self.seed, self.release_gil, self.call_samples
        hits = 0
        for start in range(begin, end, step):
            hits += pi(min(step, end - start), seed, start, release)
        return hits

    def run(self):
        return sum(self.team.run(self._range, self.parts))
