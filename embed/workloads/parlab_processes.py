"""Pure-Python pi in a process pool: the classic way around the GIL.

A ProcessPoolExecutor of spawned workers (each a separate Python with its own GIL) runs the
tasks of parlab_tasks. What processes cost besides the compute is measured apart from it:
start-up (spawning the interpreters and importing the workload), and per task the round trip of
an empty task (pickling the call and its result, two pipe transfers, the pool's bookkeeping).

Only the pure-Python half runs in processes. parlab.pi lives in the parlab binary, so a spawned
plain Python cannot import it; it already releases the GIL, so threads give it the parallelism
processes would (py-parlab-gil-released), without the start-up and pickling.
"""

import multiprocessing
import pickle
import time
from concurrent.futures import ProcessPoolExecutor

import parlab_tasks

# Seconds a worker waits at the start-up barrier for the others before giving up (a worker that
# cannot start turns into an error instead of a hang).
STARTUP_TIMEOUT_S = 120


class ProcessPi:
    def __init__(self, seed, samples, workers):
        self.seed, self.samples, self.workers = seed, samples, workers
        self.ranges = parlab_tasks.task_ranges(samples, workers)
        self.account = parlab_tasks.TaskAccount(workers)
        self.pool = self.launcher = None
        # spawn, not fork: forking a process that runs parlab's C++ threads and an embedded
        # interpreter copies locks in whatever state other threads left them (and fork is no
        # longer the default from Python 3.14). A spawned worker is a fresh Python.
        ctx = multiprocessing.get_context("spawn")
        t0 = time.perf_counter()
        try:
            self.launcher = parlab_tasks.WorkerLauncher()
            # The barrier keeps each worker's initializer waiting until all have started: the
            # executor spawns a process per submission while none is idle, so all `workers`
            # exist (and have imported the workload) before anything is timed.
            barrier = ctx.Barrier(workers)
            boot = {"sources": parlab_tasks.worker_sources(), "barrier": barrier, "timeout": STARTUP_TIMEOUT_S}
            self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=exec,
                                            initargs=(parlab_tasks.WORKER_BOOTSTRAP, boot))
            futures = [self.pool.submit(parlab_tasks.empty_task) for _ in range(workers)]
            for f in futures:
                f.result()
            self.startup_s = time.perf_counter() - t0
            self.roundtrip_s = parlab_tasks.median_roundtrip(
                lambda: self.pool.submit(parlab_tasks.empty_task).result())
        except BaseException:
            self.close()
            raise
        # What one task sends and receives, pickled (the call item carries the function by
        # reference and three integers; the result, two integers, a pair and a float).
        self.pickled_bytes = (len(pickle.dumps((parlab_tasks.count_task, (seed, 0, samples))))
                              + len(pickle.dumps((0, (0, 0), 0.0))))

    def run(self):
        t0 = time.perf_counter()
        futures = [self.pool.submit(parlab_tasks.count_task, self.seed, b, e) for b, e in self.ranges]
        try:
            results = [f.result() for f in futures]
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        return self.account.add(time.perf_counter() - t0, results)

    def stats(self):
        return dict(self.account.stats(), startup_s=self.startup_s, roundtrip_s=self.roundtrip_s,
                    pickled_bytes_per_task=float(self.pickled_bytes))

    def close(self):
        """Shuts the pool down and joins every worker; idempotent, and safe after a broken pool
        (a worker that died) or a failed start."""
        pool, self.pool = self.pool, None
        launcher, self.launcher = self.launcher, None
        try:
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)
        finally:
            if launcher is not None:
                launcher.close()
