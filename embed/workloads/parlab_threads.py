"""Python threads splitting one pi stream: pure Python, or calling parlab.pi with the GIL held or
released. Each thread counts its own contiguous range of points, or blocks of points taken from a
shared counter; either way the hits add up to the canonical count of [0, samples) whatever the
thread count and whichever thread counted which block (the stream is keyed by point index)."""

import threading

import parlab
import parlab_philox
from parlab_team import ThreadTeam

# Points per parlab.pi call: about a millisecond of work (2^21 points at the 1e9 to 2.7e9 points/s
# of one core's SIMD kernel, core/pi_simd.hpp, on the machines measured). Long enough that the GIL
# round trip around a call (a few microseconds under contention) stays small even with 16 threads queueing
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


# Points per block of the pure-Python runners: about a millisecond of pure Python (1 to 5
# microseconds a point), so 2^18 points make 1024 blocks for 16 threads to balance, and the lock
# taken once per block costs nothing next to it. Why not larger: on the node's unequal cores
# (docs/history.md, "Investigations, condensed") the threads finish within about one block of each other,
# and with 1024-point blocks (4.6 ms on 3.13t) that tail was 4% of a 16-thread run of 2^18
# points; the sub-interpreters keep 1024 (SubinterpreterPiWorkload::kBlock), their block being a
# call across interpreters.
PURE_BLOCK = 1 << 8


class PurePython(_TeamRunner):
    """Pure-Python Philox pi in a ThreadPoolExecutor: GIL-bound, about 1x at any thread count
    (and the free-threaded case, on a build without the GIL).

    Threads take blocks of PURE_BLOCK points from a shared counter rather than one range each:
    on the 16-core GPU node some cores ran pi at half the speed of others (shared VM), and a
    static split waits for the slowest (tools/node/ft-scaling-probe.py measured it; docs/history.md,
    "Investigations, condensed")."""

    def _count(self, module, blocks):
        # Each block is one chunk of the thread's per-worker accounting (parlab.accounted).
        seed, hits, count, accounted = self.seed, 0, module.hits_points, parlab.accounted
        while (block := blocks.take()) is not None:
            hits += accounted(block[1] - block[0], count, seed, block[0], block[1])
        return hits

    def _module(self):
        return parlab_philox

    def run(self):
        blocks = _Blocks(self.samples, PURE_BLOCK)
        return sum(self.team.run(lambda: self._count(self._module(), blocks), [()] * self.team.threads))


class PurePrivate(PurePython):
    """PurePython, but each thread runs its own copy of parlab_philox: the module source executed
    again in a fresh namespace, so its functions, code objects, constants and globals belong to
    that thread alone. On a free-threaded build, threads sharing one module's objects contend on
    their reference counts (every call and every global/constant load touches them); with private
    copies nothing is shared but the block counter (one lock per block), which is what lets pure
    Python scale there. With a GIL it changes nothing. The copies are made by each worker thread
    on the team's first job (a warm-up the runner does not time), since on a free-threaded build
    an object is cheapest for the thread that created it (biased reference counting)."""

    def __init__(self, seed, samples, threads):
        super().__init__(seed, samples, threads)
        self._local = threading.local()
        self.team.run(lambda: self._module(), [()] * threads)

    def _module(self):
        m = getattr(self._local, "philox", None)
        if m is None:
            m = self._local.philox = private_module("parlab_philox")
        return m


def private_module(name):
    """A fresh copy of module `name`: its source compiled and executed again in a new namespace
    (new function, code and constant objects), not registered in sys.modules."""
    import importlib.util
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _Blocks:
    """The blocks [start, start + step) of [0, samples), handed out one at a time to whichever
    thread asks next. A lock, not the GIL, makes `take` atomic, so it holds on free-threaded
    builds too; it costs well under a microsecond per block of about a millisecond."""

    def __init__(self, samples, step):
        self._next, self._samples, self._step = 0, samples, step
        self._lock = threading.Lock()

    def take(self):
        with self._lock:
            start = self._next
            if start >= self._samples:
                return None
            self._next = start + self._step
        return start, min(start + self._step, self._samples)


class ParlabPi(_TeamRunner):
    """parlab.pi from each thread in calls of `call_samples` points.

    dynamic=True: threads take the next block from a shared counter (as parlab's pool does with
    chunks), so a thread slowed by the OS or a busy neighbour core does not hold up the run; on a
    shared 16-core VM a static split (one range per thread) lost a quarter of the speedup that
    way, in C++ (`threads`, `openmp`) and in Python alike. dynamic=False: each thread loops over
    its own static range (the call-overhead runner, where a lock per 2-point call would be
    measured along with the call).

    Each parlab.pi call accounts itself as one chunk of the thread's worker (embed/module.cpp):
    the kernel alone, so the wait for the GIL, held or released, is never useful time."""

    def __init__(self, seed, samples, threads, release_gil, call_samples=CALL_SAMPLES, dynamic=True):
        super().__init__(seed, samples, threads)
        self.release_gil = release_gil
        self.call_samples = call_samples
        self.dynamic = dynamic

    def _range(self, begin, end):
        pi, seed, release, step = parlab.pi, self.seed, self.release_gil, self.call_samples
        hits = 0
        for start in range(begin, end, step):
            hits += pi(min(step, end - start), seed, start, release)
        return hits

    def _take_blocks(self, blocks):
        pi, seed, release = parlab.pi, self.seed, self.release_gil
        hits = 0
        while (block := blocks.take()) is not None:
            hits += pi(block[1] - block[0], seed, block[0], release)
        return hits

    def run(self):
        if self.dynamic:
            blocks = _Blocks(self.samples, self.call_samples)
            return sum(self.team.run(self._take_blocks, [(blocks,)] * self.team.threads))
        return sum(self.team.run(self._range, self.parts))
