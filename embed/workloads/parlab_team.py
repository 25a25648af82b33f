"""A team of Python threads that run one part of a job each, with per-thread timings.

Built on concurrent.futures.ThreadPoolExecutor, the way Python code parallelises with threads.
The workers are started when the team is made, so thread creation stays out of the timed region,
and every job starts with all of them at a barrier, so each part runs on its own thread.
"""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

try:
    from parlab import accounted, gil_wait_ns, set_worker
except ImportError:  # outside parlab's embedded interpreter: nothing is accounted
    def gil_wait_ns():
        return 0

    def set_worker(index):
        pass

    def accounted(items, fn, *args):
        return fn(*args)


def enrol(pool, threads):
    """Starts every thread of `pool` now, outside any timed region, and makes each one worker i of
    the per-worker accounting (parlab.set_worker, docs/records.md "Workers"): the pool creates a
    thread per submission while none is idle, and the barrier keeps all `threads` submissions
    running at once, so they run on `threads` distinct threads and exactly that many exist."""
    barrier = threading.Barrier(threads)

    def declare(index):
        set_worker(index)
        barrier.wait()

    list(pool.map(declare, range(threads)))


class ThreadTeam:
    def __init__(self, threads):
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.threads = threads
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="parlab-py")
        self._barrier = threading.Barrier(threads)
        enrol(self._pool, threads)
        # Sums over every job so far (one entry per worker slot), in nanoseconds.
        self.wall_ns = 0  # time each part took, from the barrier to its end
        self.cpu_ns = 0   # CPU time its thread used meanwhile (time.thread_time_ns)
        self.gil_wait_ns = 0  # time spent re-acquiring the GIL inside parlab's kernels
        self.jobs = 0

    def _part(self, fn, args):
        self._barrier.wait()
        # The CPU clock is read inside the wall-clock interval, so CPU time cannot exceed wall
        # time by more than the clocks' own accounting (which made the GIL-wait share negative
        # for parts of a few microseconds when read the other way round).
        w0 = time.perf_counter_ns()
        c0, g0 = time.thread_time_ns(), gil_wait_ns()
        result = fn(*args)
        c1, g1 = time.thread_time_ns(), gil_wait_ns()
        w1 = time.perf_counter_ns()
        return result, w1 - w0, c1 - c0, g1 - g0

    def run(self, fn, parts):
        """fn(*parts[i]) on worker i, all at once; returns the results in order."""
        if len(parts) != self.threads:
            raise ValueError(f"{len(parts)} parts for {self.threads} threads")
        out = list(self._pool.map(lambda args: self._part(fn, args), parts))
        for _, wall, cpu, gil in out:
            self.wall_ns += wall
            self.cpu_ns += cpu
            self.gil_wait_ns += gil
        self.jobs += 1
        return [r[0] for r in out]

    def stats(self):
        return {"threads": self.threads, "wall_ns": self.wall_ns, "cpu_ns": self.cpu_ns,
                "gil_wait_ns": self.gil_wait_ns, "jobs": self.jobs}

    def close(self):
        self._pool.shutdown(wait=True)
